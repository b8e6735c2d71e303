extension KeyFileError.Code {
    /// What a caller can do about an error with this code, in one sentence.
    public var recoverySuggestion: String {
        switch self {
        case .wrongPassphrase: "Ask for the passphrase again, or use another slot's passphrase."
        case .damaged: "Restore the key file from a backup."
        case .unsupportedVersion: "Open the key file with a newer version of Coffer."
        case .slotNotFound: "Use one of the labels in KeyFile.slotLabels."
        case .slotExists: "Choose another label, or remove the existing slot first."
        case .lastSlot: "Add another slot before removing this one."
        case .keyMismatch: "Pass the data key this key file wraps."
        case .invalidArgument: "Fix the argument the message names."
        case .fileExists: "Choose another path; never overwrite a key file that is still needed."
        case .io: "Check that the path exists and is readable and writable, and that the disk has space."
        case .cryptoFailure: "Retry; on a small device, lower the key derivation's cost."
        }
    }
}
