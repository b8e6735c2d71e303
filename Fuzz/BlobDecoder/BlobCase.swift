import Coffer
import CofferFuzzSupport
import Crypto
import Foundation

/// One run's setup, read from the input's first byte: which chain reads the blob and for which
/// row; every byte after it is the blob.
///
/// The configuration byte: bits 0–2 pick the stage list, bit 3 the metadata role, bit 4 a chain
/// that refuses unencrypted blobs, bits 5–6 the row.
struct BlobCase {
    let chain: SerializerChain
    let collection: String
    let key: String
    let blob: Data

    /// The stage lists a configuration can pick: every combination Coffer ships and a few orders.
    static let stageLists: [[any SerializationStage]] = {
        let zlib = ZlibStage.zlib(threshold: 16, decompressionLimit: decompressionLimit)
        let aes = AESGCMStage.aesGCM(FuzzKeys.keyring)
        let chacha = ChaChaPolyStage.chaChaPoly(FuzzKeys.keyring)
        return [[], [zlib], [aes], [chacha], [zlib, aes], [zlib, chacha], [aes, chacha], [chacha, zlib]]
    }()

    /// The rows a configuration can pick; encryption binds the collection and the key.
    static let rows: [(collection: String, key: String)] = [
        ("", ""), ("notes", "n1"), ("ünïcødé", "κλειδί"), ("notes", "n2"),
    ]

    /// The ceiling of the chains' own zlib stage; small, so a run never inflates much.
    static let decompressionLimit = 1 << 20

    init(_ input: Data) {
        var reader = FuzzInput(input)
        let configuration = reader.byte()
        let row = Self.rows[Int(configuration >> 5) & 3]
        chain = Self.chain(
            stages: Int(configuration & 7), metadata: configuration & 8 != 0, strict: configuration & 16 != 0)
        collection = row.collection
        key = row.key
        blob = reader.rest()
    }

    /// A chain over the raw `Data` codec, so every byte the stages return reaches the checks.
    static func chain(stages: Int, metadata: Bool, strict: Bool) -> SerializerChain {
        SerializerChain(
            codec: .data, stages: stageLists[stages], role: metadata ? .metadata : .object,
            acceptsUnencryptedBlobs: !strict)
    }

    /// The configuration byte that selects these choices (for writing seeds).
    static func configuration(stages: Int, metadata: Bool = false, strict: Bool = false, row: Int = 1) -> UInt8 {
        UInt8(stages & 7) | (metadata ? 8 : 0) | (strict ? 16 : 0) | UInt8((row & 3) << 5)
    }
}

/// The fixed keys every run uses, so seeds written once keep decrypting.
enum FuzzKeys {
    /// Key id 1: readable but no longer current (blobs under it need re-encryption).
    static let old = SymmetricKey(data: [UInt8](repeating: 0x11, count: 32))
    /// Key id 2: the current key.
    static let current = SymmetricKey(data: [UInt8](repeating: 0x22, count: 32))

    /// Holds key 1 and key 2, with key 2 current.
    static let keyring: Keyring = makeKeyring(currentID: 2)

    /// A keyring with both keys and `currentID` current.
    static func makeKeyring(currentID: Keyring.KeyID) -> Keyring {
        let keyring = Keyring()
        do {
            try keyring.addKey(old, id: 1)
            try keyring.addKey(current, id: 2)
            try keyring.setCurrent(currentID)
        } catch {
            fuzzCheck(false, "the fuzz keyring cannot be set up: \(error)")
        }
        return keyring
    }
}
