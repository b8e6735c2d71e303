import CLibCrypto

/// AES-256-GCM on the system's libcrypto (OpenSSL), for the value-encryption stage on Linux.
///
/// swift-crypto's `AES.GCM.seal` sets up a new BoringSSL context, expands the key and builds
/// its sealed box through several `Data` copies on every call, many times the cost of the cipher
/// itself for a small row (BENCHMARKS.md). This type keeps one fetched cipher for the process
/// and writes straight into the caller's buffers. The bytes are standard AES-256-GCM (96-bit nonce, 128-bit tag), so either
/// implementation opens what the other sealed; the tests check that both ways.
///
/// Each call uses its own cipher context, freed (and wiped by OpenSSL) before it returns, so
/// no key schedule outlives the call and the type is safe to use from any thread.
package enum AES256GCM {
    /// Bytes of key.
    package static let keySize = 32
    /// Bytes of nonce.
    package static let nonceSize = 12
    /// Bytes of authentication tag.
    package static let tagSize = 16

    /// Why a call failed.
    ///
    /// The cases carry no key, nonce or data bytes.
    package enum Failure: Error, Sendable, Equatable {
        /// A key, nonce, tag or output buffer had the wrong size.
        case invalidArgument
        /// libcrypto has no AES-256-GCM or refused to set up a context.
        case unavailable
        /// libcrypto reported an error while encrypting.
        case encryptionFailed
        /// The tag does not authenticate the ciphertext and associated data with this key
        /// and nonce (or libcrypto failed while decrypting).
        case authenticationFailed
    }

    /// Encrypts `plaintext` into `ciphertext` (the same size) and writes the tag into `tag`.
    ///
    /// - Throws: ``Failure``.
    /// - Complexity: O(plaintext + associated data).
    package static func seal(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, ciphertext: UnsafeMutableRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) throws(Failure) {
        guard ciphertext.count == plaintext.count, tag.count == tagSize else { throw .invalidArgument }
        try withContext(key: key, nonce: nonce, encrypting: true) { context throws(Failure) in
            guard update(context, input: associatedData, output: nil, encrypting: true),
                update(context, input: plaintext, output: ciphertext.baseAddress, encrypting: true),
                finish(context, encrypting: true),
                ccoffer_gcm_get_tag(context, Int32(tagSize), tag.baseAddress) == 1
            else { throw .encryptionFailed }
        }
    }

    /// Decrypts `ciphertext` into `plaintext` (the same size) after checking `tag`.
    ///
    /// On failure `plaintext` is zeroed: GCM decrypts before it can check the tag, and those
    /// bytes must not be mistaken for data.
    ///
    /// - Throws: ``Failure``; ``Failure/authenticationFailed`` for a wrong tag, key, nonce or
    ///   associated data.
    /// - Complexity: O(ciphertext + associated data).
    package static func open(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        plaintext: UnsafeMutableRawBufferPointer
    ) throws(Failure) {
        guard plaintext.count == ciphertext.count, tag.count == tagSize else { throw .invalidArgument }
        // The tag goes in through a mutable pointer (OpenSSL's ctrl signature); copy it.
        var tagCopy: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &tagCopy) { $0.copyMemory(from: tag) }
        do {
            try withContext(key: key, nonce: nonce, encrypting: false) { context throws(Failure) in
                let authentic = withUnsafeMutableBytes(of: &tagCopy) { tagBytes in
                    update(context, input: associatedData, output: nil, encrypting: false)
                        && update(context, input: ciphertext, output: plaintext.baseAddress, encrypting: false)
                        && ccoffer_gcm_set_tag(context, Int32(tagSize), tagBytes.baseAddress) == 1
                        && finish(context, encrypting: false)
                }
                guard authentic else { throw .authenticationFailed }
            }
        } catch {
            plaintext.initializeMemory(as: UInt8.self, repeating: 0)
            throw error
        }
    }

    /// Runs `body` with a fresh context keyed and given its nonce, then frees the context.
    private static func withContext(
        key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, encrypting: Bool,
        _ body: (OpaquePointer) throws(Failure) -> Void
    ) throws(Failure) {
        guard key.count == keySize, nonce.count == nonceSize else { throw .invalidArgument }
        guard let cipher = SharedCipher.aes256GCM.pointer, let context = EVP_CIPHER_CTX_new() else {
            throw .unavailable
        }
        defer { EVP_CIPHER_CTX_free(context) }
        let keyBytes = key.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let nonceBytes = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let initialized =
            encrypting
            ? EVP_EncryptInit_ex(context, cipher, nil, keyBytes, nonceBytes)
            : EVP_DecryptInit_ex(context, cipher, nil, keyBytes, nonceBytes)
        guard initialized == 1 else { throw .unavailable }
        try body(context)
    }

    /// Feeds `input` through the context in pieces libcrypto's `int` lengths can hold; with
    /// no `output` the bytes are associated data.
    private static func update(
        _ context: OpaquePointer, input: UnsafeRawBufferPointer, output: UnsafeMutableRawPointer?, encrypting: Bool
    ) -> Bool {
        let piece = 1 << 30
        var offset = 0
        while offset < input.count {
            let count = min(piece, input.count - offset)
            let source = input.baseAddress.map { ($0 + offset).assumingMemoryBound(to: UInt8.self) }
            let target = output.map { ($0 + offset).assumingMemoryBound(to: UInt8.self) }
            var written: Int32 = 0
            let result =
                encrypting
                ? EVP_EncryptUpdate(context, target, &written, source, Int32(count))
                : EVP_DecryptUpdate(context, target, &written, source, Int32(count))
            // GCM is a stream mode: every byte in comes out at once.
            guard result == 1, output == nil || Int(written) == count else { return false }
            offset += count
        }
        return true
    }

    /// Ends the message; GCM writes no bytes here, it computes (or, decrypting, checks) the tag.
    private static func finish(_ context: OpaquePointer, encrypting: Bool) -> Bool {
        var scratch: (UInt64, UInt64) = (0, 0)
        var written: Int32 = 0
        return withUnsafeMutableBytes(of: &scratch) { buffer in
            let target = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return encrypting
                ? EVP_EncryptFinal_ex(context, target, &written) == 1
                : EVP_DecryptFinal_ex(context, target, &written) == 1
        }
    }
}

/// The process's fetched AES-256-GCM cipher.
///
/// `@unchecked Sendable` because an OpenSSL cipher object is immutable once fetched and
/// reference-counted by OpenSSL itself, which documents it as safe to share between threads.
private struct SharedCipher: @unchecked Sendable {
    static let aes256GCM = SharedCipher(pointer: ccoffer_aes256gcm_fetch())

    /// Nil when libcrypto offers no AES-256-GCM (for example a restricted provider).
    let pointer: OpaquePointer?
}
