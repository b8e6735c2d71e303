extension DatabaseError.Code {
    /// What a caller can do about an error with this code, in one sentence.
    ///
    /// Every code has one; the message says what failed, this says what to do next. Codes made
    /// outside Coffer (``DatabaseError/Code/init(rawValue:)``) get a generic sentence.
    public var recoverySuggestion: String {
        Self.suggestions[self] ?? "See the message and the underlying error for the cause."
    }

    private static let suggestions: [DatabaseError.Code: String] = [
        .wrongKey: "Check the key; if it is right, the file's first page may be damaged: restore a backup.",
        .keyRequired: "Open it with DatabaseOptions.key set to the key it was created with.",
        .wrongPassphrase: "Ask for the passphrase again, or unlock the key file with another slot.",
        .damagedKeyFile: "Restore the key file from a backup; the database itself may be intact.",
        .notEncrypted: "Open it without a key, or encrypt it with Database.encryptPlaintextDatabase.",
        .notADatabase: "Check the path: the file is not a SQLite or Coffer database.",
        .invalidKey: "Pass a 32-byte raw key, a non-empty passphrase or a key file.",
        .emptyFile: "Restore a backup, or set DatabaseOptions.treatsEmptyFileAsNew if an empty file is expected.",
        .corrupt: "Stop writing and restore a backup; Connection.integrityCheck() tells more.",
        .io: "Check free disk space, permissions and that the path exists, then retry.",
        .busy: "Retry later, and end long-lived read transactions that hold the database.",
        .readOnly: "Make the file and its directory writable, or open the database read-only.",
        .misuse: "This is a programming error: fix the call as the message describes.",
        .unsupportedCipherSettings: "Use cipher settings the linked SQLCipher supports (DatabaseOptions.cipher).",
        .notSQLCipher: "Link the app against SQLCipher (libsqlcipher), not plain SQLite.",
        .unsupportedFormat: "Open the file with a newer version of Coffer.",
        .serialization: "Check the collection's registered codec and stages; the underlying error names the stage.",
        .typeMismatch: "Read with the type that was stored, or register the codec for this type.",
        .mutationDuringEnumeration: "Set stop to true after writing inside an enumeration, or collect the keys first.",
        .extensionFailure: "Fix the extension's setup or handler; the transaction was rolled back.",
        .duplicateItem: "Use upsert or update, or remove the row the message names.",
        .itemNotFound: "Add the item first, or use upsert.",
        .cancelled: "Nothing was left half-done; run the operation again if it is still wanted.",
        .closed: "Open the database again to go on using it.",
        .sqlite: "Report the error with its SQLite code and message.",
        .invalidQuery: "Fix the query format or its arguments; bind values with ?, never write them into the SQL.",
        .unsupportedFeature: "Use a feature the linked SQLite has (for example FullTextSearch's .fts4).",
    ]
}
