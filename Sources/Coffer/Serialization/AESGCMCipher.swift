import Crypto
import Foundation

#if canImport(CofferCipher)
    import CofferCipher
#endif

/// The AES-256-GCM implementation behind ``AESGCMStage``.
///
/// It is the system's libcrypto on Linux (`CofferCipher`, about three times faster per row than
/// swift-crypto there) and swift-crypto everywhere else. Both produce and accept the same
/// `nonce ‖ ciphertext ‖ tag` bytes.
enum AESGCMCipher {
    /// Seals `plaintext` and returns `nonce ‖ ciphertext ‖ tag`.
    ///
    /// - Throws: Whatever the backend reports; ``AEADFraming`` turns it into
    ///   ``SerializationError/Code/encryptionFailed``.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, key: SymmetricKey,
        authenticating associatedData: UnsafeRawBufferPointer
    ) throws -> Data {
        let nonceSize = nonce.count
        return try Data.writtenInPlace(count: nonceSize + plaintext.count + AEADFraming.tagSize) { combined in
            UnsafeMutableRawBufferPointer(rebasing: combined[..<nonceSize]).copyMemory(from: nonce)
            try seal(
                plaintext, nonce: nonce, key: key, authenticating: associatedData,
                into: UnsafeMutableRawBufferPointer(rebasing: combined[nonceSize...]))
        }
    }

    /// Seals `plaintext` into `output`, which holds exactly `ciphertext ‖ tag` (the plaintext's
    /// size plus 16 bytes).
    ///
    /// - Throws: Whatever the backend reports.
    static func seal(
        _ plaintext: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, key: SymmetricKey,
        authenticating associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws {
        let ciphertextEnd = plaintext.count
        #if canImport(CofferCipher)
            try key.withUnsafeBytes { keyBytes in
                try AES256GCM.seal(
                    key: keyBytes, nonce: nonce, plaintext: plaintext, associatedData: associatedData,
                    ciphertext: UnsafeMutableRawBufferPointer(rebasing: output[..<ciphertextEnd]),
                    tag: UnsafeMutableRawBufferPointer(rebasing: output[ciphertextEnd...]))
            }
        #else
            let sealed = try AES.GCM.seal(
                plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
            guard output.count == ciphertextEnd + AEADFraming.tagSize else {
                throw CryptoKitError.incorrectParameterSize
            }
            sealed.ciphertext.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: output[..<ciphertextEnd]).copyMemory(from: $0)
            }
            sealed.tag.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: output[ciphertextEnd...]).copyMemory(from: $0)
            }
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
            // Uninitialized: the cipher writes every byte (and wipes them if the tag is wrong).
            return try Data.writtenInPlace(count: ciphertextEnd - nonceSize) { plaintext in
                try combined.withUnsafeBytes { input in
                    try key.withUnsafeBytes { keyBytes in
                        try AES256GCM.open(
                            key: keyBytes, nonce: UnsafeRawBufferPointer(rebasing: input[..<nonceSize]),
                            ciphertext: UnsafeRawBufferPointer(rebasing: input[nonceSize..<ciphertextEnd]),
                            tag: UnsafeRawBufferPointer(rebasing: input[ciphertextEnd...]),
                            associatedData: associatedData, plaintext: plaintext)
                    }
                }
            }
        #else
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: associatedData)
        #endif
    }
}
