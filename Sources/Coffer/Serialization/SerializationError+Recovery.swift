extension SerializationError.Code {
    /// What a caller can do about an error with this code, in one sentence.
    public var recoverySuggestion: String {
        switch self {
        case .typeMismatch: "Store the type the collection's codec handles, or register a codec for this type."
        case .codecFailed: "Migrate the stored rows or the type so that they match again."
        case .badMagic: "Pass a blob written by a chain with stages."
        case .unsupportedVersion: "Read the blob with a newer version of Coffer."
        case .truncated, .malformedHeader, .inflateFailed: "The stored blob is damaged: restore the row from a backup."
        case .unknownStage: "Add the stage that wrote the blob (with its keyring) back to the chain."
        case .unknownKeyID: "Add the key with that id back to the Keyring."
        case .noCurrentKey: "Make a key current with Keyring.setCurrent(_:) before writing."
        case .authenticationFailed: "Treat the row as tampered with or damaged: restore it from a backup."
        case .encryptionFailed, .compressionFailed: "Retry; report the error if it persists."
        case .stageFailed: "See the custom stage's own error for the cause."
        case .decompressionLimitExceeded:
            "Raise the zlib stage's decompressionLimit only if values this large are expected."
        case .invalidKey: "Pass a 256-bit key: 32 bytes, or DataKey.random()."
        case .duplicateKeyID: "Pick an id the keyring does not hold yet."
        case .keyInUse: "Make another key current before removing this one."
        case .unencryptedBlob:
            "Investigate the planted or damaged row; to migrate plaintext rows on purpose, use acceptsUnencryptedBlobs and reencrypt."
        case .invalidConfiguration:
            "Fix the chain: at most 8 stages with distinct, non-zero ids and parameters under 256 bytes."
        }
    }
}
