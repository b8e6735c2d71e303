import Coffer
import CofferFuzzSupport
import Foundation

/// The key-file writer with a label taken from the input: a valid label gives a file that parses
/// back equal and unlocks with its passphrase only; an invalid one is `invalidArgument`.
enum LabelChecks {
    /// The data key every label run wraps.
    static let dataKey: DataKey? = try? DataKey(bytes: [UInt8](repeating: 0x5A, count: DataKey.byteCount))

    static func check(label: String) {
        guard let dataKey else {
            fuzzCheck(false, "the fixed data key cannot be made")
            return
        }
        let valid = (1...KeyFile.maximumLabelLength).contains(label.utf8.count)
        let file: KeyFile
        do {
            file = try KeyFile(
                wrapping: dataKey, passphrase: KeyFileChecks.passphrase, label: label,
                parameters: KeyFileChecks.cheapParameters)
        } catch {
            fuzzCheck(!valid && error.code == .invalidArgument, "wrapping with a label threw \(error.code): \(error)")
            return
        }
        fuzzCheck(valid, "a label of \(label.utf8.count) UTF-8 bytes accepted")
        guard let encoded = try? file.encoded(), let parsed = try? KeyFile(contents: encoded) else {
            fuzzCheck(false, "a freshly written key file does not encode and parse")
            return
        }
        fuzzCheck(parsed == file, "a freshly written key file changed through encode and parse")
        fuzzCheck(
            parsed.slotLabels.map { Array($0.utf8) } == [Array(label.utf8)], "the label's bytes changed in the file")
        fuzzCheck(
            (try? parsed.unwrap(passphrase: KeyFileChecks.passphrase)) == dataKey, "the passphrase does not unlock")
        do {
            _ = try parsed.unwrap(passphrase: Array("not the passphrase".utf8))
            fuzzCheck(false, "a wrong passphrase unlocked the file")
        } catch {
            fuzzCheck(error.code == .wrongPassphrase, "a wrong passphrase threw \(error.code)")
        }
    }
}
