import CofferFixtureSupport
import Coffer
import Foundation

/// Value-level damage: files whose pages are intact but whose blobs were altered.
extension DamagedFixtures {
    var chainsBase: String { context.cofferPath(ChainFixtures.fileName) }

    /// The chains fixture's recipe as it stands after writing (key 2 current).
    var chainsRecipe: FixtureDatabase.Recipe {
        var recipe = ChainFixtures.recipe
        recipe.keyrings["values"]?.current = 2
        return recipe
    }

    /// Header bytes: magic, format version 1, `flags`, `count` records.
    static func header(flags: UInt8, count: UInt8, _ records: [UInt8] = [], version: UInt8 = 1) -> Data {
        Data(BlobBytes.magic + [version, flags, count] + records)
    }

    /// A small valid note as JSON.
    static let noteJSON = Data(#"{"body":"","tags":[],"title":"crafted"}"#.utf8)

    func makeValueDamage() throws {
        let auth = ErrorSpec(code: "serialization", serializationCode: "authenticationFailed")
        try valueFixture(
            "aes-tampered.db",
            method: "aes-gcm/s1: the first ciphertext byte (after the 12-byte nonce) of its AES-256-GCM blob flipped",
            errors: [("aes-gcm", "s1", "object", auth)]
        ) { surgery in
            try surgery.rewriteObject("aes-gcm", "s1") { blob in
                guard let header = BlobBytes.headerLength(blob) else { throw GeneratorError("s1 has no header") }
                var bytes = blob
                bytes[bytes.startIndex + header + 12] ^= 0x01
                return bytes
            }
        }
        try valueFixture(
            "aes-swapped.db", method: "the AES-256-GCM blobs of aes-gcm/s1 and aes-gcm/s2 swapped (both under key 1)",
            errors: [("aes-gcm", "s1", "object", auth), ("aes-gcm", "s2", "object", auth)]
        ) { surgery in
            try surgery.swapObjects("aes-gcm", "s1", "s2")
        }
        let unknown = ErrorSpec(code: "serialization", serializationCode: "unknownKeyID")
        try valueFixture(
            "unknown-key-id.db",
            method:
                "the key id in the headers of aes-gcm/s3 (object) and zlib+aes-gcm/b2 (metadata) rewritten from 2 to 9",
            errors: [("aes-gcm", "s3", "object", unknown), ("zlib+aes-gcm", "b2", "metadata", unknown)]
        ) { surgery in
            try surgery.rewriteObject("aes-gcm", "s3") { try Self.setKeyID(9, in: $0) }
            try surgery.rewriteMetadata("zlib+aes-gcm", "b2") { try Self.setKeyID(9, in: $0) }
        }
        try makeBadHeaders()
        try makeZipBomb()
    }

    /// Replaces the AES-256-GCM record's key id.
    static func setKeyID(_ id: UInt32, in blob: Data) throws -> Data {
        guard let offset = BlobBytes.parameterOffset(blob, stageID: 2) else { throw GeneratorError("no AES record") }
        var bytes = [UInt8](blob)
        bytes.replaceSubrange(offset..<offset + 4, with: BlobBytes.littleEndian(id))
        return Data(bytes)
    }

    private func makeBadHeaders() throws {
        func error(_ code: String) -> ErrorSpec { ErrorSpec(code: "serialization", serializationCode: code) }
        let json = [UInt8](Self.noteJSON)
        let crafted: [(key: String, bytes: Data, error: ErrorSpec)] = [
            ("bad-version", Self.header(flags: 0, count: 0, version: 9) + json, error("unsupportedVersion")),
            ("reserved-flag", Self.header(flags: 0x80, count: 0) + json, error("malformedHeader")),
            ("flags-disagree", Self.header(flags: 0x01, count: 0) + json, error("malformedHeader")),
            ("too-many-records", Self.header(flags: 0, count: 9) + json, error("malformedHeader")),
            ("truncated-header", Data(BlobBytes.magic + [1]), error("truncated")),
            ("unknown-stage", Self.header(flags: 0, count: 1, [0x50, 0x00]) + json, error("unknownStage")),
            (
                // Compressed but not encrypted: the encrypting chain refuses it before inflating.
                "zlib-garbage",
                Self.header(flags: 0x01, count: 1, [1, 4] + BlobBytes.littleEndian(100))
                    + Data(repeating: 0xAB, count: 20),
                error("unencryptedBlob")
            ),
            (
                "aes-short-payload",
                Self.header(flags: 0x02, count: 1, [2, 4] + BlobBytes.littleEndian(1))
                    + Data(repeating: 0xAB, count: 10),
                error("truncated")
            ),
            ("not-json", Data("not json".utf8), error("unencryptedBlob")),
        ]
        let strictPlain = Data(#"{"account":"eve@example.com","password":"plaintext"}"#.utf8)
        var recipe = chainsRecipe
        recipe.serializers.append(Self.strictSerializers)
        try valueFixture(
            "bad-blob-headers.db",
            method:
                "crafted blobs stored verbatim in zlib+aes-gcm (bad version, reserved flag, flags without records, 9 records, header cut after the version, unknown stage 0x50, zlib record over garbage, AES payload shorter than nonce+tag, non-JSON without header) and in strict (a collection that refuses unencrypted blobs): one plaintext row and one properly sealed row",
            recipe: recipe,
            errors: crafted.map { ("zlib+aes-gcm", $0.key, "object", $0.error) } + [
                ("strict", "plain", "object", error("unencryptedBlob"))
            ]
        ) { surgery in
            for row in crafted { try surgery.insertRaw("zlib+aes-gcm", row.key, row.bytes) }
            try surgery.insertRaw("strict", "plain", strictPlain)
            try surgery.write([FixtureRow("strict", "sealed", Secret(account: "frank@example.com", password: "sealed"))]
            )
        }
    }

    /// A collection whose chain encrypts and refuses unencrypted blobs.
    static let strictSerializers = CollectionSerializers(
        collection: "strict",
        object: ChainSpec(codec: .secret, stages: [.aesGCM(keyring: "values")], acceptsUnencryptedBlobs: false))

    /// The bomb collection: raw bytes through zlib, read with a 64 KiB decompression limit.
    static let bombSerializers = CollectionSerializers(
        collection: "bomb", object: ChainSpec(codec: .data, stages: [.zlib(decompressionLimit: 65536)]))

    private func makeZipBomb() throws {
        let limit = ErrorSpec(code: "serialization", serializationCode: "decompressionLimitExceeded")
        var recipe = chainsRecipe
        recipe.serializers.append(Self.bombSerializers)
        let forged =
            Self.header(flags: 0x01, count: 1, [1, 4] + BlobBytes.littleEndian(UInt32.max))
            + Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        try valueFixture(
            "zip-bomb.db",
            method:
                "bomb/over-limit: 1 MiB of zeros written through zlib (about 1 KiB stored), read with a 64 KiB decompressionLimit; bomb/forged-length: a zlib record claiming 4 GiB over an empty stream; bomb/small: 600 bytes that inflate within the limit",
            recipe: recipe,
            errors: [("bomb", "over-limit", "object", limit), ("bomb", "forged-length", "object", limit)]
        ) { surgery in
            try surgery.write([
                FixtureRow("bomb", "over-limit", Data(count: 1 << 20)),
                FixtureRow("bomb", "small", Data(repeating: 0x41, count: 600)),
            ])
            try surgery.insertRaw("bomb", "forged-length", forged)
        }
    }

    /// Copies the chains fixture, runs `surgery` on it, then checks that Coffer reports exactly
    /// `errors` and reads every other row as the base did.
    private func valueFixture(
        _ name: String, method: String, recipe: FixtureDatabase.Recipe? = nil,
        errors: [(String, String, String, ErrorSpec)], _ surgery: (BlobSurgery) throws -> Void
    ) throws {
        let recipe = recipe ?? chainsRecipe
        let path = context.damagedPath(name)
        let url = try copy(chainsBase, to: path)
        let stage = context.stage
        let editor = try BlobSurgery(url: url, recipe: recipe) { stage.stagedURL($0) }
        try surgery(editor)
        try editor.close()
        let declared = Set(errors.map { "\($0.0)/\($0.1).\($0.2)=\($0.3.code)/\($0.3.serializationCode ?? "")" })
        let observed = try observer.observe(
            path, key: recipe.key, cipher: recipe.cipher, serializers: recipe.serializers, keyrings: recipe.keyrings)
        let seen = Set(
            (observed.rowErrors ?? []).map {
                "\($0.collection)/\($0.key).\($0.column)=\($0.error.code)/\($0.error.serializationCode ?? "")"
            })
        guard observed.openError == nil, observed.readError == nil, seen == declared else {
            throw GeneratorError(
                "\(path): expected \(declared.sorted()), observed \(Self.describe(observed)) \(seen.sorted())")
        }
        try record(path, observed: observed, recipe: recipe, method: method, derivedFrom: chainsBase)
    }

    /// Adds the entry of a value-damaged fixture after checking its surviving rows against the base.
    private func record(
        _ path: String, observed: Expectation, recipe: FixtureDatabase.Recipe, method: String, derivedFrom: String
    ) throws {
        let base = try context.contents(of: derivedFrom)
        let baseRows = try Dictionary(
            (base.rows ?? []).map { ("\($0.collection)/\($0.key)", try JSONValue.from($0)) },
            uniquingKeysWith: { a, _ in a })
        for row in observed.rows ?? [] {
            if let expected = baseRows["\(row.collection)/\(row.key)"], expected != (try JSONValue.from(row)) {
                throw GeneratorError("\(path): row \(row.collection)/\(row.key) differs from its base")
            }
        }
        print("  \(path): \(Self.describe(observed))")
        context.addDatabase(
            path, origin: context.origin(method, derivedFrom: derivedFrom), recipe: recipe,
            checks: [Check(name: "damage is reported per row", expect: observed)])
    }
}
