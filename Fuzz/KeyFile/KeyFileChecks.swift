import Coffer
import CofferFuzzSupport
import Foundation

/// The key-file parser on any bytes: it returns a valid key file that re-encodes to itself, or
/// throws `damaged` / `unsupportedVersion`; a file it accepts and can unlock cheaply yields the
/// key its identifier commits to.
enum KeyFileChecks {
    /// The passphrase of every seed's slots.
    static let passphrase = Array("fuzz passphrase".utf8)

    static func checkParse(_ bytes: Data) {
        let file: KeyFile
        do {
            file = try KeyFile(contents: bytes)
        } catch {
            fuzzCheck([.damaged, .unsupportedVersion].contains(error.code), "parsing threw \(error.code): \(error)")
            fuzzCheck(!error.reason.isEmpty && error.path == nil, "a parse error without a reason, or with a path")
            return
        }
        fuzzCheck(!bytes.isEmpty && bytes.count <= KeyFile.maximumFileSize, "accepted a file of \(bytes.count) bytes")
        checkStructure(file)
        let encoded: Data
        do {
            encoded = try file.encoded()
        } catch {
            fuzzCheck(false, "an accepted key file does not encode: \(error)")
            return
        }
        guard let again = try? KeyFile(contents: encoded) else {
            fuzzCheck(false, "the encoding of an accepted key file does not parse")
            return
        }
        fuzzCheck(again == file, "a key file changed through encode and parse")
        fuzzCheck((try? again.encoded()) == encoded, "re-encoding is not byte-identical")
        if isCheapToUnlock(file) { checkUnlock(file) }
    }

    /// What the format promises about any file the parser accepts.
    static func checkStructure(_ file: KeyFile) {
        let labels = file.slotLabels
        fuzzCheck((1...KeyFile.maximumSlotCount).contains(labels.count), "\(labels.count) slots accepted")
        fuzzCheck(Set(labels).count == labels.count, "duplicate labels accepted")
        fuzzCheck(
            labels.allSatisfy { (1...KeyFile.maximumLabelLength).contains($0.utf8.count) }, "a bad label accepted")
        let identifier = file.keyIdentifier
        fuzzCheck(
            identifier.count == 32 && identifier.allSatisfy { $0.isHexDigit && !$0.isUppercase },
            "key identifier \(identifier) is not 16 bytes of lowercase hex")
    }

    /// Unlocking gives a key whose identifier is the file's, or a documented error.
    static func checkUnlock(_ file: KeyFile) {
        let key: DataKey
        do {
            key = try file.unwrap(passphrase: passphrase)
        } catch {
            fuzzCheck([.wrongPassphrase, .damaged].contains(error.code), "unwrap threw \(error.code): \(error)")
            return
        }
        guard let rewrapped = try? KeyFile(wrapping: key, passphrase: passphrase, parameters: cheapParameters) else {
            fuzzCheck(false, "an unwrapped key cannot be wrapped again")
            return
        }
        fuzzCheck(rewrapped.keyIdentifier == file.keyIdentifier, "the unwrapped key is not the one the file names")
    }

    /// The KDF the fuzz target writes slots with: the cheapest the format accepts.
    static let cheapParameters = KeyFile.KDFParameters.pbkdf2SHA256(
        iterations: KeyFile.KDFParameters.minimumPBKDF2Iterations)

    /// Whether trying every slot costs little: unlocking a crafted file may otherwise derive
    /// keys with up to 1 GiB of scrypt memory or 10^8 PBKDF2 iterations per slot.
    static func isCheapToUnlock(_ file: KeyFile) -> Bool {
        file.slots.allSatisfy { slot in
            switch slot.parameters {
            case .scrypt(let n, let r, let p): n * r * p <= 1 << 12
            case .pbkdf2SHA256(let iterations): iterations <= 2_000
            }
        } && file.slots.count <= 4
    }
}
