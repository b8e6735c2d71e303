import Crypto
import Foundation

#if canImport(CofferCipher)
    import CofferCipher
#endif

/// The AES-256-GCM implementation behind ``AESGCMStage``: the system's libcrypto on Linux
/// (`CofferCipher`, about three times faster per row than swift-crypto there), swift-crypto
/// everywhere else. Both produce and accept the same `nonce ‖ ciphertext ‖ tag` bytes.
enum AESGCMCipher {
    /// Seals `plaintext` and returns `nonce ‖ ciphertext ‖ tag`.
    ///
    /// - Throws: Whatever the backend reports; ``AEADFraming`` turns it into
    ///   ``SerializationError/Code/encryptionFailed``.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, key: SymmetricKey,
        authenticating associatedData: UnsafeRawBufferPointer
    ) throws -> Data {
        #if canImport(CofferCipher)
            let nonceSize = AEADFraming.nonceSize
            let ciphertextEnd = nonceSize + plaintext.count
            var combined = Data(count: ciphertextEnd + AEADFraming.tagSize)
            try combined.withUnsafeMutableBytes { output in
                try key.withUnsafeBytes { keyBytes in
                    UnsafeMutableRawBufferPointer(rebasing: output[..<nonceSize]).copyMemory(from: nonce)
                    try AES256GCM.seal(
                        key: keyBytes, nonce: nonce, plaintext: plaintext, associatedData: associatedData,
                        ciphertext: UnsafeMutableRawBufferPointer(rebasing: output[nonceSize..<ciphertextEnd]),
                        tag: UnsafeMutableRawBufferPointer(rebasing: output[ciphertextEnd...]))
                }
            }
            return combined
        #else
            let sealed = try AES.GCM.seal(
                plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
            guard let combined = sealed.combined else { throw CryptoKitError.incorrectParameterSize }
            return combined
        #endif
    }

    /// Opens `nonce ‖ ciphertext ‖ tag` and returns the plaintext.
    ///
    /// - Throws: Whatever the backend reports (also for input shorter than a nonce and a tag);
    ///   ``AEADFraming`` turns every failure into ``SerializationError/Code/authenticationFailed``.
    static func open(
        _ combined: Data, key: SymmetricKey, authenticating associatedData: UnsafeRawBufferPointer
    ) throws -> Data {
        #if canImport(CofferCipher)
            let nonceSize = AEADFraming.nonceSize
            guard combined.count >= nonceSize + AEADFraming.tagSize else { throw AES256GCM.Failure.invalidArgument }
            let ciphertextEnd = combined.count - AEADFraming.tagSize
            var plaintext = Data(count: ciphertextEnd - nonceSize)
            try combined.withUnsafeBytes { input in
                try key.withUnsafeBytes { keyBytes in
                    try plaintext.withUnsafeMutableBytes { output in
                        try AES256GCM.open(
                            key: keyBytes, nonce: UnsafeRawBufferPointer(rebasing: input[..<nonceSize]),
                            ciphertext: UnsafeRawBufferPointer(rebasing: input[nonceSize..<ciphertextEnd]),
                            tag: UnsafeRawBufferPointer(rebasing: input[ciphertextEnd...]),
                            associatedData: associatedData, plaintext: output)
                    }
                }
            }
            return plaintext
        #else
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: associatedData)
        #endif
    }
}
