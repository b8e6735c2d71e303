/// Every code as a pattern on ``KeyFileError`` itself, so a `catch` names the failure:
///
/// ```swift
/// do {
///     let key = try KeyFile.read(from: keyURL).unwrap(passphrase: passphrase)
/// } catch KeyFileError.wrongPassphrase {
///     // ask again
/// }
/// ```
///
/// A pattern matches a bare ``KeyFileError`` (from ``KeyFile`` and ``DataKey``) and one wrapped
/// as the ``DatabaseError/underlying`` of a ``DatabaseError``, which is how a key file's failure
/// reaches a caller opening a database with ``DatabaseKey/keyFile(_:passphrase:)``
/// (``DatabaseError/wrongPassphrase`` matches there as well). `switch error.code` keeps using
/// the enum's cases.
extension KeyFileError {
    /// Matches ``Code/wrongPassphrase``: no slot opens with the passphrase.
    public static let wrongPassphrase = Code.wrongPassphrase
    /// Matches ``Code/damaged``: the file is not a well-formed key file.
    public static let damaged = Code.damaged
    /// Matches ``Code/unsupportedVersion``: the file's format version is newer than this build.
    public static let unsupportedVersion = Code.unsupportedVersion
    /// Matches ``Code/slotNotFound``: no slot has the label.
    public static let slotNotFound = Code.slotNotFound
    /// Matches ``Code/slotExists``: a slot with the label already exists.
    public static let slotExists = Code.slotExists
    /// Matches ``Code/lastSlot``: the only slot cannot be removed.
    public static let lastSlot = Code.lastSlot
    /// Matches ``Code/keyMismatch``: a data key is not the one the file wraps.
    public static let keyMismatch = Code.keyMismatch
    /// Matches ``Code/invalidArgument``: an argument is unusable.
    public static let invalidArgument = Code.invalidArgument
    /// Matches ``Code/fileExists``: the file exists and will not be replaced.
    public static let fileExists = Code.fileExists
    /// Matches ``Code/io``: reading or writing the file failed.
    public static let io = Code.io
    /// Matches ``Code/cryptoFailure``: the cryptographic library failed.
    public static let cryptoFailure = Code.cryptoFailure
}

extension KeyFileError.Code {
    /// Tells whether `error` is a ``KeyFileError`` with this code, bare or wrapped as the
    /// ``DatabaseError/underlying`` of a ``DatabaseError``, which lets a code stand as a
    /// pattern: `catch KeyFileError.wrongPassphrase`.
    public static func ~= (pattern: KeyFileError.Code, error: any Error) -> Bool {
        DatabaseError.chain(from: error).contains { ($0 as? KeyFileError)?.code == pattern }
    }
}
