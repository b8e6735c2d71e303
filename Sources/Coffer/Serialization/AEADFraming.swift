import Crypto
import Foundation

/// The framing Coffer's AEAD stages share: a 4-byte key id as header parameters and
/// `nonce ‖ ciphertext ‖ tag` as payload.
enum AEADFraming {
    /// Bytes of nonce before the ciphertext.
    static let nonceSize = 12
    /// Bytes of authentication tag after the ciphertext.
    static let tagSize = 16

    /// Runs `body` with 12 fresh random bytes for a nonce.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/encryptionFailed``
    ///   when the system gives no random bytes, or what `body` throws.
    static func withRandomNonce<R>(stage: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try withUnsafeTemporaryAllocation(byteCount: nonceSize, alignment: 1) { buffer in
            guard NonceSource.fill(buffer) else {
                throw SerializationError(.encryptionFailed, stage: stage, reason: "no random bytes for a nonce")
            }
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The header parameters that name a key id.
    static func parameters(for keyID: Keyring.KeyID) -> Data {
        var parameters = Data()
        parameters.appendLittleEndian(keyID)
        return parameters
    }

    /// The key id recorded in a stage's parameters.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/malformedHeader``.
    static func keyID(from parameters: Data, stage: String) throws(SerializationError) -> Keyring.KeyID {
        guard let keyID = parameters.littleEndianUInt32() else {
            throw SerializationError(.malformedHeader, stage: stage, reason: "parameters are not a 4-byte key id")
        }
        return keyID
    }

    /// Checks that a payload is long enough to hold a nonce and a tag.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/truncated``.
    static func checkLength(of payload: Data, stage: String) throws(SerializationError) {
        guard payload.count >= nonceSize + tagSize else {
            throw SerializationError(
                .truncated, stage: stage, reason: "\(payload.count) bytes cannot hold a nonce and a tag")
        }
    }

    /// Whether blobs recording `parameters` were written under a key other than the current.
    static func needsReencryption(parameters: Data, keyring: Keyring) -> Bool {
        guard let keyID = parameters.littleEndianUInt32(), let current = keyring.currentKeyID else { return false }
        return keyID != current
    }

    /// The error every failure to open a sealed box becomes, whatever the backend reported.
    static func authenticationFailed(stage: String) -> SerializationError {
        SerializationError(
            .authenticationFailed, stage: stage,
            reason: "the blob does not authenticate for this row with the key it names")
    }

    /// Seals `input` under the keyring's current key with a fresh nonce and the row's associated
    /// data; `seal` is the cipher (plaintext, nonce, key, associated data → `nonce ‖ ciphertext ‖ tag`).
    ///
    /// - Throws: ``SerializationError`` (`.noCurrentKey`, `.encryptionFailed`).
    static func seal(
        _ input: Data, context: SerializationStageContext, keyring: Keyring, algorithm: UInt8, stage: String,
        _ seal: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, SymmetricKey, UnsafeRawBufferPointer) throws -> Data
    ) throws -> SerializationStageOutput {
        try withSealInputs(context: context, keyring: keyring, algorithm: algorithm, stage: stage) {
            parameters, key, associatedData, nonce in
            let sealed = try input.withUnsafeBytes { try seal($0, nonce, key, associatedData) }
            return SerializationStageOutput(parameters: parameters, payload: sealed)
        }
    }

    /// Seals `input` like ``seal(_:context:keyring:algorithm:stage:_:)`` but straight into a
    /// complete blob (``BlobWritingStage``): the header with the earlier stages' records and this
    /// stage's, the nonce, then `sealInto` writes `ciphertext ‖ tag` into the rest of the buffer.
    ///
    /// `algorithm` is the stage's id, as everywhere in this type: it names the record too.
    ///
    /// - Throws: ``SerializationError`` (`.noCurrentKey`, `.encryptionFailed`).
    static func sealBlob(
        _ input: Data, context: SerializationStageContext, keyring: Keyring, algorithm: UInt8, stage: String,
        flags: BlobHeader.Flags, precedingCount: Int, precedingRecords: Data,
        _ sealInto: (
            UnsafeRawBufferPointer, UnsafeRawBufferPointer, SymmetricKey, UnsafeRawBufferPointer,
            UnsafeMutableRawBufferPointer
        ) throws -> Void
    ) throws -> Data {
        try withSealInputs(context: context, keyring: keyring, algorithm: algorithm, stage: stage) {
            parameters, key, associatedData, nonce in
            var records = precedingRecords
            BlobHeader.appendRecord(stageID: algorithm, parameters: parameters, to: &records)
            return try BlobHeader.assemble(
                flags: flags, recordCount: precedingCount + 1, records: records,
                payloadCount: nonceSize + input.count + tagSize
            ) { payload in
                UnsafeMutableRawBufferPointer(rebasing: payload[..<nonceSize]).copyMemory(from: nonce)
                try input.withUnsafeBytes { plaintext in
                    try sealInto(
                        plaintext, nonce, key, associatedData,
                        UnsafeMutableRawBufferPointer(rebasing: payload[nonceSize...]))
                }
            }
        }
    }

    /// Runs `body` with what every seal needs — the header parameters naming the current key,
    /// its subkey, the row's associated data and a fresh nonce — and turns any failure that is
    /// not already a ``SerializationError`` into `.encryptionFailed`.
    private static func withSealInputs<R>(
        context: SerializationStageContext, keyring: Keyring, algorithm: UInt8, stage: String,
        _ body: (Data, SymmetricKey, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        let (keyID, key) = try keyring.currentSubkey(collection: context.collection, algorithm: algorithm)
        let parameters = parameters(for: keyID)
        do {
            return try context.withAssociatedData(parameters: parameters) { associatedData in
                try withRandomNonce(stage: stage) { try body(parameters, key, associatedData, $0) }
            }
        } catch let error as SerializationError {
            throw error
        } catch {
            throw SerializationError(.encryptionFailed, stage: stage, reason: "sealing failed")
        }
    }

    /// Opens `payload` with the key its parameters name.
    ///
    /// `open` is the cipher (combined box, key, associated data → plaintext). Any failure of the
    /// cipher itself is `.authenticationFailed`.
    ///
    /// - Throws: ``SerializationError`` (`.malformedHeader`, `.truncated`, `.unknownKeyID`,
    ///   `.authenticationFailed`).
    static func open(
        _ payload: Data, parameters: Data, context: SerializationStageContext, keyring: Keyring, algorithm: UInt8,
        stage: String, _ open: (Data, SymmetricKey, UnsafeRawBufferPointer) throws -> Data
    ) throws -> Data {
        let keyID = try keyID(from: parameters, stage: stage)
        try checkLength(of: payload, stage: stage)
        let key = try keyring.subkey(collection: context.collection, keyID: keyID, algorithm: algorithm)
        do {
            return try context.withAssociatedData(parameters: parameters) { try open(payload, key, $0) }
        } catch {
            throw authenticationFailed(stage: stage)
        }
    }
}
