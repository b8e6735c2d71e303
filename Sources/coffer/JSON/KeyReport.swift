/// Which key a command used or made, as `--json` output shows it: its kind and file, never
/// its bytes or passphrase.
struct KeyReport: Codable, Equatable {
    /// The kinds of key the tool works with.
    enum Kind: String, Codable {
        /// An envelope key file, unlocked with a passphrase.
        case keyFile
        /// A file of 32 raw key bytes.
        case rawKeyFile
        /// No key: an unencrypted database.
        case none
    }

    /// The kind of key.
    var kind: Kind
    /// The key file, when there is one.
    var path: String?

    /// Creates a report.
    init(kind: Kind, path: String? = nil) {
        self.kind = kind
        self.path = path
    }

    /// A raw key file at `path`, or no key when `path` is nil.
    init(rawKeyFile path: String?) {
        self.init(kind: path == nil ? .none : .rawKeyFile, path: path)
    }
}

extension KeyOptions {
    /// The key these options give, for `--json` output.
    var report: KeyReport {
        if let keyFile { return KeyReport(kind: .keyFile, path: keyFile) }
        return KeyReport(rawKeyFile: rawKeyFile)
    }
}

extension NewKeyOptions {
    /// The new key these options ask for, for `--json` output; nil when none was asked for.
    var report: KeyReport? {
        if let newKeyFile { return KeyReport(kind: .keyFile, path: newKeyFile) }
        return newRawKeyFile.map { KeyReport(kind: .rawKeyFile, path: $0) }
    }
}
