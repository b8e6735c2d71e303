import Coffer
import Foundation

/// The seed corpus: real blobs of every stage list (header-less, compressed, encrypted under the
/// current and the old key, both roles, a zero-record header), and hand-made broken headers.
enum BlobSeeds {
    static func make() throws -> [(name: String, bytes: Data)] {
        var seeds: [(name: String, bytes: Data)] = []
        let text = Data("Coffer keeps rows in SQLCipher; ".utf8)
        let values: [(String, Data)] = [
            ("short", Data("hello".utf8)),
            ("text", Data((0..<20).flatMap { _ in text })),
            ("magic", Data(BlobHeader.magic + [1, 0, 0, 42])),
        ]
        for stages in 0..<BlobCase.stageLists.count {
            for (label, value) in values {
                let configuration = BlobCase.configuration(stages: stages)
                let blob = try write(value, stages: stages, configuration: configuration, currentKey: 2)
                seeds.append(("chain\(stages)-\(label)", Data([configuration]) + blob))
            }
        }
        // Old key, metadata role, strict chain, another row.
        let text640 = values[1].1
        for (name, configuration, keyID) in [
            ("old-key", BlobCase.configuration(stages: 4), Keyring.KeyID(1)),
            ("metadata", BlobCase.configuration(stages: 5, metadata: true), 2),
            ("strict", BlobCase.configuration(stages: 2, strict: true, row: 2), 2),
            ("empty-row", BlobCase.configuration(stages: 6, row: 0), 2),
        ] {
            let blob = try write(
                text640, stages: Int(configuration & 7), configuration: configuration, currentKey: keyID)
            seeds.append((name, Data([configuration]) + blob))
        }
        seeds += brokenHeaders()
        return seeds
    }

    /// Writes `value` with the chain `configuration` selects, under key `currentKey`.
    private static func write(_ value: Data, stages: Int, configuration: UInt8, currentKey: Keyring.KeyID) throws
        -> Data
    {
        let keyring = FuzzKeys.makeKeyring(currentID: currentKey)
        let list: [any SerializationStage] = BlobCase.stageLists[stages].map { stage in
            switch stage {
            case is AESGCMStage: AESGCMStage(keyring: keyring)
            case is ChaChaPolyStage: ChaChaPolyStage(keyring: keyring)
            default: stage
            }
        }
        let row = BlobCase.rows[Int(configuration >> 5) & 3]
        let chain = SerializerChain(
            codec: .data, stages: list, role: configuration & 8 != 0 ? .metadata : .object,
            acceptsUnencryptedBlobs: configuration & 16 == 0)
        return try chain.serialize(value, collection: row.collection, key: row.key)
    }

    /// Headers each parser branch should refuse, read by a zlib + AES-GCM chain.
    private static func brokenHeaders() -> [(name: String, bytes: Data)] {
        let head = Data([BlobCase.configuration(stages: 4)]) + Data(BlobHeader.magic)
        return [
            ("bad-version", head + Data([2, 0, 0])),
            ("reserved-flags", head + Data([1, 4, 0])),
            ("too-many-records", head + Data([1, 0, 9])),
            ("truncated-record", head + Data([1, 1, 1, 1, 4, 0x10])),
            ("unknown-stage", head + Data([1, 0, 1, 200, 0, 0xAB])),
            ("flags-disagree", head + Data([1, 2, 1, 1, 4, 5, 0, 0, 0, 0x78, 0x9C])),
            ("zlib-bomb-length", head + Data([1, 1, 1, 1, 4, 0xFF, 0xFF, 0xFF, 0x7F, 0x78, 0x9C, 3, 0])),
            ("unknown-key", head + Data([1, 2, 1, 2, 4, 9, 0, 0, 0]) + Data(repeating: 0, count: 28)),
        ]
    }
}
