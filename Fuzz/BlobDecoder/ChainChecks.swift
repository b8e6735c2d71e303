import Coffer
import CofferFuzzSupport
import Foundation

/// The chain on any bytes: decoding returns the bytes that were written or throws one of the
/// codes `SerializerChain.deserialize` documents, naming the row; writing then reading gives back
/// what was written; an encrypted blob opens only for its own row and column.
enum ChainChecks {
    static let decodeCodes: Set<SerializationError.Code> = [
        .unsupportedVersion, .truncated, .malformedHeader, .unknownStage, .unknownKeyID, .authenticationFailed,
        .inflateFailed, .decompressionLimitExceeded, .unencryptedBlob,
    ]

    /// Decodes the input's blob as stored data.
    static func checkDecode(_ run: BlobCase) {
        guard let decoded = decode(run.blob, chain: run.chain, collection: run.collection, key: run.key) else {
            return
        }
        let headered = !run.chain.stages.isEmpty && BlobHeader.hasMagic(run.blob)
        if !headered {
            fuzzCheck(decoded == run.blob, "a header-less blob changed when read")
        }
        fuzzCheck(
            decoded.count <= max(run.blob.count, ZlibStage.defaultDecompressionLimit),
            "decoding produced \(decoded.count) bytes, beyond every decompression limit")
        if headered, let header = try? BlobHeader(parsing: run.blob) {
            if run.chain.encrypts && !run.chain.acceptsUnencryptedBlobs {
                fuzzCheck(header.flags.contains(.encrypted), "a strict chain read an unencrypted blob")
            }
            if header.flags.contains(.encrypted) { checkBinding(run.blob, of: run) }
        } else if headered {
            fuzzCheck(false, "a blob whose header does not parse was decoded")
        }
        checkRoundTrip(decoded, through: run)
    }

    /// Writes `value` through the chain and reads it back.
    static func checkRoundTrip(_ value: Data, through run: BlobCase) {
        let encoded: Data
        do {
            encoded = try run.chain.serialize(value, collection: run.collection, key: run.key)
        } catch {
            fuzzCheck(false, "serializing \(value.count) bytes threw \(error)")
            return
        }
        if run.chain.stages.isEmpty {
            fuzzCheck(encoded == value, "a chain without stages changed the bytes")
        }
        fuzzCheck(!run.chain.needsReencryption(encoded), "a blob just written needs re-encryption")
        if run.chain.encrypts {
            let header = try? BlobHeader(parsing: encoded)
            fuzzCheck(header?.flags.contains(.encrypted) == true, "a chain that encrypts wrote no encrypted header")
            checkBinding(encoded, of: run)
        }
        let back = decode(encoded, chain: run.chain, collection: run.collection, key: run.key)
        fuzzCheck(back == value, "decode(encode(x)) != x for \(value.count) bytes")
    }

    /// An encrypted blob must not open for another row or as the other column.
    static func checkBinding(_ blob: Data, of run: BlobCase) {
        let otherRow = BlobCase.rows.first { $0.collection != run.collection || $0.key != run.key } ?? ("x", "y")
        expectAuthenticationFailure(blob, chain: run.chain, collection: otherRow.collection, key: otherRow.key)
        let otherRole = SerializerChain(
            codec: run.chain.codec, stages: run.chain.stages, role: run.chain.role == .object ? .metadata : .object,
            acceptsUnencryptedBlobs: run.chain.acceptsUnencryptedBlobs)
        expectAuthenticationFailure(blob, chain: otherRole, collection: run.collection, key: run.key)
    }

    private static func expectAuthenticationFailure(
        _ blob: Data, chain: SerializerChain, collection: String, key: String
    ) {
        do {
            _ = try chain.deserialize(blob, collection: collection, key: key)
            fuzzCheck(false, "an encrypted blob opened for another row or column")
        } catch {
            fuzzCheck(
                error.code == .authenticationFailed, "a misplaced blob threw \(error.code), not authenticationFailed")
        }
    }

    /// Decodes, checking the error when there is one; nil when decoding failed.
    private static func decode(_ blob: Data, chain: SerializerChain, collection: String, key: String) -> Data? {
        do {
            let value = try chain.deserialize(blob, collection: collection, key: key)
            guard let data = value as? Data else {
                fuzzCheck(false, "the data codec returned \(type(of: value))")
                return nil
            }
            return data
        } catch {
            fuzzCheck(decodeCodes.contains(error.code), "deserialize threw \(error.code): \(error)")
            fuzzCheck(error.collection == collection && error.key == key, "the error does not name the row")
            return nil
        }
    }
}
