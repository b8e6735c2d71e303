/// Every code as a pattern on ``DatabaseError`` itself, so a `catch` names the failure:
///
/// ```swift
/// do {
///     let db = try Database(url: url, options: options)
/// } catch DatabaseError.wrongKey, DatabaseError.keyRequired {
///     // ask for the key again
/// }
/// ```
///
/// Each static is the ``DatabaseError/Code`` of the same name; the `~=` below makes it match
/// any error that is a ``DatabaseError`` with that code. `switch error.code { case .wrongKey: }`
/// and `error.code == .wrongKey` are unchanged: they use ``DatabaseError/Code``'s own statics.
extension DatabaseError {
    /// Matches ``Code/wrongKey`` in a `catch`: the key does not open the file.
    public static let wrongKey = Code.wrongKey
    /// Matches ``Code/keyRequired`` in a `catch`: the file is encrypted and no key was given.
    public static let keyRequired = Code.keyRequired
    /// Matches ``Code/wrongPassphrase`` in a `catch`: the passphrase does not unlock the key file.
    public static let wrongPassphrase = Code.wrongPassphrase
    /// Matches ``Code/damagedKeyFile`` in a `catch`: the envelope key file is damaged or unknown.
    public static let damagedKeyFile = Code.damagedKeyFile
    /// Matches ``Code/notEncrypted`` in a `catch`: a key was given for a plaintext database.
    public static let notEncrypted = Code.notEncrypted
    /// Matches ``Code/notADatabase`` in a `catch`: the file is not a database.
    public static let notADatabase = Code.notADatabase
    /// Matches ``Code/invalidKey`` in a `catch`: the key is empty or malformed.
    public static let invalidKey = Code.invalidKey
    /// Matches ``Code/emptyFile`` in a `catch`: a zero-length file where a database was expected.
    public static let emptyFile = Code.emptyFile
    /// Matches ``Code/corrupt`` in a `catch`: SQLite reported corruption.
    public static let corrupt = Code.corrupt
    /// Matches ``Code/io`` in a `catch`: a read or write failed, or the disk is full.
    public static let io = Code.io
    /// Matches ``Code/busy`` in a `catch`: a lock was held past the busy timeout.
    public static let busy = Code.busy
    /// Matches ``Code/readOnly`` in a `catch`: the file or directory cannot be written.
    public static let readOnly = Code.readOnly
    /// Matches ``Code/misuse`` in a `catch`: the API was used in a way it does not support.
    public static let misuse = Code.misuse
    /// Matches ``Code/unsupportedCipherSettings`` in a `catch`: the linked SQLCipher cannot use
    /// the cipher settings.
    public static let unsupportedCipherSettings = Code.unsupportedCipherSettings
    /// Matches ``Code/notSQLCipher`` in a `catch`: the linked SQLite is not SQLCipher.
    public static let notSQLCipher = Code.notSQLCipher
    /// Matches ``Code/unsupportedFormat`` in a `catch`: the file's format is newer than this build.
    public static let unsupportedFormat = Code.unsupportedFormat
    /// Matches ``Code/serialization`` in a `catch`: a value could not be serialized or read back.
    ///
    /// To match the stage's reason instead, catch the ``SerializationError`` code:
    /// `catch SerializationError.authenticationFailed`.
    public static let serialization = Code.serialization
    /// Matches ``Code/typeMismatch`` in a `catch`: a stored value is not of the type asked for.
    public static let typeMismatch = Code.typeMismatch
    /// Matches ``Code/mutationDuringEnumeration`` in a `catch`: an enumeration's body wrote
    /// without stopping.
    public static let mutationDuringEnumeration = Code.mutationDuringEnumeration
    /// Matches ``Code/extensionFailure`` in a `catch`: an extension failed or is not registered.
    public static let extensionFailure = Code.extensionFailure
    /// Matches ``Code/duplicateItem`` in a `catch`: an item that must be new already exists.
    public static let duplicateItem = Code.duplicateItem
    /// Matches ``Code/itemNotFound`` in a `catch`: an item that must exist does not.
    public static let itemNotFound = Code.itemNotFound
    /// Matches ``Code/cancelled`` in a `catch`: the operation was cancelled.
    public static let cancelled = Code.cancelled
    /// Matches ``Code/closed`` in a `catch`: the database was closed.
    public static let closed = Code.closed
    /// Matches ``Code/sqlite`` in a `catch`: any other SQLite failure.
    public static let sqlite = Code.sqlite
    /// Matches ``Code/invalidQuery`` in a `catch`: a query is malformed.
    public static let invalidQuery = Code.invalidQuery
    /// Matches ``Code/unsupportedFeature`` in a `catch`: the linked SQLite lacks a feature.
    public static let unsupportedFeature = Code.unsupportedFeature
}

extension DatabaseError.Code {
    /// Tells whether `error` is a ``DatabaseError`` with this code, which lets a code stand as a
    /// pattern: `catch DatabaseError.wrongKey`, `case DatabaseError.busy:` in a `switch` over an
    /// error.
    ///
    /// Only the error itself is compared, not the errors it wraps in
    /// ``DatabaseError/underlying``.
    public static func ~= (pattern: DatabaseError.Code, error: any Error) -> Bool {
        (error as? DatabaseError)?.code == pattern
    }
}

extension DatabaseError {
    /// `error` and the errors ``underlying`` wraps, outermost first, as far as the first error
    /// that is not a ``DatabaseError``: where the other error types' patterns look.
    static func chain(from error: any Error) -> some Sequence<any Error> {
        sequence(first: error) { ($0 as? DatabaseError)?.underlying }
    }
}
