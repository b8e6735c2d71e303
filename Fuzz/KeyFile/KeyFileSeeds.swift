import Coffer
import Foundation

/// The seed corpus: real key files from the writer (one and several slots, both KDFs, unusual
/// labels), a few hand-made damaged ones, and label-mode inputs.
enum KeyFileSeeds {
    static func make() throws -> [(name: String, bytes: Data)] {
        let key = try DataKey(bytes: [UInt8](repeating: 0x33, count: DataKey.byteCount))
        let passphrase = KeyFileChecks.passphrase
        let cheap = KeyFileChecks.cheapParameters
        let scrypt = KeyFile.KDFParameters.scrypt(n: KeyFile.KDFParameters.minimumScryptCost, r: 1, p: 1)
        let single = try KeyFile(wrapping: key, passphrase: passphrase, parameters: cheap)
        let twoSlots = try single.addingSlot(
            label: "recovery", passphrase: Array("recovery words".utf8), parameters: scrypt, dataKey: key)
        let odd = try KeyFile(
            wrapping: key, passphrase: passphrase, label: "ünï \"quoted\" /slash/ \u{7}", parameters: cheap)
        let otherPassphrase = try KeyFile(wrapping: key, passphrase: Array("other".utf8), parameters: scrypt)
        var seeds: [(name: String, bytes: Data)] = [
            ("single-pbkdf2", try single.encoded()),
            ("two-slots", try twoSlots.encoded()),
            ("odd-label", try odd.encoded()),
            ("other-passphrase-scrypt", try otherPassphrase.encoded()),
        ]
        var full = single
        for index in 1..<KeyFile.maximumSlotCount {
            full = try full.addingSlot(label: "slot \(index)", passphrase: passphrase, parameters: cheap, dataKey: key)
        }
        seeds.append(("sixteen-slots", try full.encoded()))
        let text = String(decoding: try single.encoded(), as: UTF8.self)
        let edits: [(String, String, String)] = [
            ("newer-version", "\"version\" : 1", "\"version\" : 2"),
            ("bad-checksum", "\"checksum\" : \"", "\"checksum\" : \"00"),
            ("unknown-kdf", "pbkdf2-sha256", "argon2id"),
            ("mistyped-slots", "\"slots\" : [", "\"slots\" : {\"x\":["),
        ]
        for (name, target, replacement) in edits {
            seeds.append((name, Data(text.replacingOccurrences(of: target, with: replacement).utf8)))
        }
        seeds.append(("not-json", Data("coffer.keyfile".utf8)))
        // Label mode: a leading 0x00, then the label's bytes.
        for (name, label) in [
            ("label-plain", "primary"), ("label-unicode", "é e\u{301} \u{2028}\u{0}"),
            ("label-long", String(repeating: "x", count: 65)),
        ] {
            seeds.append((name, Data([0]) + Data(label.utf8)))
        }
        return seeds
    }
}
