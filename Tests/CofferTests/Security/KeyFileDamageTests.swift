import Foundation
import PropertyBased
import Testing

@testable import Coffer

/// Damaged and tampered key files, and secrets kept out of files and messages.
///
/// Checks what is reported as `damaged` and what as `wrongPassphrase`. KDF parameters are the
/// small test ones (`fastScrypt`, `fastPBKDF2`) to keep the suite fast.
@Suite("KeyFile damage")
struct KeyFileDamageTests {
    let dataKey: DataKey
    let keyFile: KeyFile
    let bytes: [UInt8]

    init() throws {
        dataKey = try DataKey(bytes: KeyFileFixture.dataKey)
        keyFile = try KeyFile(contents: Data(KeyFileFixture.version1.utf8))
        bytes = Array(try keyFile.encoded())
    }

    /// The parsed JSON object of the fixture, for targeted edits.
    func document() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func encode(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    /// Replaces a base64 field of slot 0 by the same bytes with one bit flipped.
    func flippingBit(inSlotField field: String) throws -> Data {
        var object = try document()
        var slots = try #require(object["slots"] as? [[String: Any]])
        let text = try #require(slots[0][field] as? String)
        var value = try #require(Data(base64Encoded: text))
        value[value.startIndex + 3] ^= 0x10
        slots[0][field] = value.base64EncodedString()
        object["slots"] = slots
        return try encode(object)
    }

    @Test func emptyTruncatedAndGarbageFilesAreDamaged() throws {
        expectKeyFileError(.damaged) { try KeyFile(contents: [UInt8]()) }
        for length in [1, 10, bytes.count / 2, bytes.count - 3] {
            expectKeyFileError(.damaged) { try KeyFile(contents: bytes.prefix(length)) }
        }
        expectKeyFileError(.damaged) { try KeyFile(contents: Array("not a key file".utf8)) }
        expectKeyFileError(.damaged) { try KeyFile(contents: Array("{}".utf8)) }
        expectKeyFileError(.damaged) { try KeyFile(contents: Array("[1, 2, 3]".utf8)) }
        expectKeyFileError(.damaged) { try KeyFile(contents: [UInt8](repeating: 0, count: 512)) }
        expectKeyFileError(.damaged) {
            try KeyFile(contents: [UInt8](repeating: 0x20, count: KeyFile.maximumFileSize + 1))
        }
    }

    @Test func randomBytesAreDamaged() async {
        await propertyCheck(count: 100, input: Gen.uint8().array(of: 0...300)) { garbage in
            expectKeyFileError(.damaged) { try KeyFile(contents: garbage) }
        }
    }

    @Test func badMagicAndVersionsAreReported() throws {
        var object = try document()
        object["format"] = "coffer.keyfilf"
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        object = try document()
        object["version"] = 2
        let newer = expectKeyFileError(.unsupportedVersion) { try KeyFile(contents: try encode(object)) }
        #expect(newer?.reason.contains("2") == true)

        for version in [0, -1] {
            object["version"] = version
            expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }
        }
        object["version"] = "1"
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }
    }

    @Test(arguments: ["salt", "check", "nonce", "ciphertext", "tag"])
    func aFlippedBitInASlotFieldIsDamagedNotAWrongPassphrase(field: String) throws {
        expectKeyFileError(.damaged) { try KeyFile(contents: try flippingBit(inSlotField: field)) }
    }

    @Test func editedMetadataIsDamaged() throws {
        var object = try document()
        object["keyID"] = "00" + String((try #require(object["keyID"] as? String)).dropFirst(2))
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        object = try document()
        var slots = try #require(object["slots"] as? [[String: Any]])
        slots[0]["kdf"] = ["algorithm": "scrypt", "n": 2048, "r": 8, "p": 1]
        object["slots"] = slots
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        slots[0]["kdf"] = ["algorithm": "argon2id", "n": 1024]
        object["slots"] = slots
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        slots[0]["kdf"] = ["algorithm": "scrypt", "n": 1 << 30, "r": 8, "p": 1]  // 128 GiB: refused before deriving
        object["slots"] = slots
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        object = try document()
        slots = try #require(object["slots"] as? [[String: Any]])
        slots[0]["nonce"] = Data(count: 16).base64EncodedString()
        object["slots"] = slots
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        slots = try #require((try document())["slots"] as? [[String: Any]])
        object["slots"] = [slots[0], slots[0]]
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        object["slots"] = [[String: Any]]()
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }

        object = try document()
        object["checksum"] = String(repeating: "0", count: 64)
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }
        object["checksum"] = "not hex"
        expectKeyFileError(.damaged) { try KeyFile(contents: try encode(object)) }
    }

    /// Flipping any one bit of the file never yields `wrongPassphrase` or another key: either the
    /// change is meaningless (whitespace, hex case, unused base64 padding bits) and the same key
    /// opens, or the file is `damaged`.
    @Test func noSingleBitFlipLooksLikeAWrongPassphrase() throws {
        var opened = 0
        for index in bytes.indices {
            var copy = bytes
            copy[index] ^= 0x01
            do {
                let parsed = try KeyFile(contents: copy)
                #expect(try parsed.unwrap(passphrase: TestPassphrase.user) == dataKey, "byte \(index)")
                opened += 1
            } catch {
                #expect(error.code == .damaged, "byte \(index): \(error)")
            }
        }
        #expect(opened < bytes.count / 4, "most flips must be detected")
    }

    /// Forgeries that recompute the checksum yield no key.
    ///
    /// A changed seal is still `damaged` because the passphrase check matches; a changed
    /// passphrase check cannot be told apart from a wrong passphrase.
    @Test func forgeriesWithARecomputedChecksum() throws {
        let slot = keyFile.slots[0]
        func forged(_ edit: (inout [UInt8], inout [UInt8], inout [UInt8]) -> Void) throws -> KeyFile {
            var ciphertext = slot.ciphertext
            var tag = slot.tag
            var check = slot.check
            edit(&ciphertext, &tag, &check)
            let changed = KeyFile.Slot(
                label: slot.label, parameters: slot.parameters, salt: slot.salt, check: check,
                nonce: slot.nonce, ciphertext: ciphertext, tag: tag)
            return try KeyFile(contents: KeyFile(keyID: keyFile.keyID, slots: [changed]).encoded())
        }
        let badCiphertext = try forged { ciphertext, _, _ in ciphertext[0] ^= 1 }
        expectKeyFileError(.damaged) { try badCiphertext.unwrap(passphrase: TestPassphrase.user) }
        let badTag = try forged { _, tag, _ in tag[15] ^= 0x80 }
        expectKeyFileError(.damaged) { try badTag.unwrap(passphrase: TestPassphrase.user) }
        let badCheck = try forged { _, _, check in check[0] ^= 1 }
        expectKeyFileError(.wrongPassphrase) { try badCheck.unwrap(passphrase: TestPassphrase.user) }
    }

    @Test func secretsNeverAppearInFilesOrMessages() throws {
        let fresh = DataKey.random()
        let keyFile = try KeyFile(wrapping: fresh, passphrase: TestPassphrase.user, parameters: .fastScrypt)
            .addingSlot(label: "recovery", passphrase: TestPassphrase.recovery, parameters: .fastPBKDF2, dataKey: fresh)
        let file = Array(try keyFile.encoded())
        let keyBytes = fresh.withUnsafeBytes { Array($0) }
        let secrets: [[UInt8]] = [
            keyBytes,
            Array(KeyFile.hex(keyBytes).utf8),
            Array(Data(keyBytes).base64EncodedString().utf8),
            TestPassphrase.user,
            TestPassphrase.recovery,
        ]
        for secret in secrets {
            #expect(!file.contains(subsequence: secret))
        }

        var messages = [String(describing: keyFile), String(reflecting: fresh), "\(fresh)"]
        for attempt in [
            { _ = try keyFile.unwrap(passphrase: TestPassphrase.other) },
            { _ = try keyFile.changingPassphrase(from: TestPassphrase.other, to: TestPassphrase.user) },
            { _ = try KeyFile(contents: file.dropLast(40)) },
            { _ = try KeyFile(contents: file.map { $0 == UInt8(ascii: "A") ? UInt8(ascii: "B") : $0 }) },
            { _ = try DataKey(bytes: keyBytes.dropLast()) },
        ] {
            do {
                try attempt()
                Issue.record("expected an error")
            } catch {
                messages.append(String(describing: error))
                messages.append(String(reflecting: error))
            }
        }
        for message in messages {
            for secret in secrets {
                #expect(!message.contains(String(decoding: secret, as: UTF8.self)), "\(message)")
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs as a contiguous run.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { start in self[start..<start + needle.count].elementsEqual(needle)
        }
    }
}
