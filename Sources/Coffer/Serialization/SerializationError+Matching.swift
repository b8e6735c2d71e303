/// Every code as a pattern on ``SerializationError`` itself, so a `catch` names the failure:
///
/// ```swift
/// do {
///     let note = try tx.object(forKey: "n1", inCollection: "notes", as: Note.self)
/// } catch SerializationError.authenticationFailed {
///     // the stored blob was altered or moved: restore the row
/// }
/// ```
///
/// A pattern matches a bare ``SerializationError`` (from a ``SerializerChain`` or ``Keyring``
/// called directly) and one that reaches the caller wrapped in a ``DatabaseError`` (code
/// ``DatabaseError/Code/serialization``, the stage's error in ``DatabaseError/underlying``),
/// which is how every failure inside a transaction arrives. `switch error.code` keeps using the
/// enum's cases.
extension SerializationError {
    /// Matches ``Code/typeMismatch``: the object is not of the type the codec handles.
    public static let typeMismatch = Code.typeMismatch
    /// Matches ``Code/codecFailed``: the codec failed to encode or decode.
    public static let codecFailed = Code.codecFailed
    /// Matches ``Code/badMagic``: a required header is missing.
    public static let badMagic = Code.badMagic
    /// Matches ``Code/unsupportedVersion``: the blob's format version is newer than this build.
    public static let unsupportedVersion = Code.unsupportedVersion
    /// Matches ``Code/truncated``: the blob ends inside its header or framing.
    public static let truncated = Code.truncated
    /// Matches ``Code/malformedHeader``: the blob's header is inconsistent.
    public static let malformedHeader = Code.malformedHeader
    /// Matches ``Code/unknownStage``: the blob was written by a stage the chain lacks.
    public static let unknownStage = Code.unknownStage
    /// Matches ``Code/unknownKeyID``: the blob or write names a key id the keyring lacks.
    public static let unknownKeyID = Code.unknownKeyID
    /// Matches ``Code/noCurrentKey``: the keyring has no current key.
    public static let noCurrentKey = Code.noCurrentKey
    /// Matches ``Code/authenticationFailed``: the blob was altered, moved, or keyed otherwise.
    public static let authenticationFailed = Code.authenticationFailed
    /// Matches ``Code/encryptionFailed``: encryption itself failed.
    public static let encryptionFailed = Code.encryptionFailed
    /// Matches ``Code/stageFailed``: a custom stage threw an error of its own type.
    public static let stageFailed = Code.stageFailed
    /// Matches ``Code/compressionFailed``: deflating failed.
    public static let compressionFailed = Code.compressionFailed
    /// Matches ``Code/inflateFailed``: the compressed bytes do not inflate as recorded.
    public static let inflateFailed = Code.inflateFailed
    /// Matches ``Code/decompressionLimitExceeded``: the blob would inflate past the limit.
    public static let decompressionLimitExceeded = Code.decompressionLimitExceeded
    /// Matches ``Code/invalidKey``: a key is not 256 bits long.
    public static let invalidKey = Code.invalidKey
    /// Matches ``Code/duplicateKeyID``: the keyring already holds that id.
    public static let duplicateKeyID = Code.duplicateKeyID
    /// Matches ``Code/keyInUse``: the current key cannot be removed.
    public static let keyInUse = Code.keyInUse
    /// Matches ``Code/unencryptedBlob``: an encrypting chain met a blob that is not encrypted.
    public static let unencryptedBlob = Code.unencryptedBlob
    /// Matches ``Code/invalidConfiguration``: the chain or a stage cannot work as configured.
    public static let invalidConfiguration = Code.invalidConfiguration
}

extension SerializationError.Code {
    /// Tells whether `error` is a ``SerializationError`` with this code, bare or wrapped as the
    /// ``DatabaseError/underlying`` of a ``DatabaseError``, which lets a code stand as a
    /// pattern: `catch SerializationError.authenticationFailed`.
    public static func ~= (pattern: SerializationError.Code, error: any Error) -> Bool {
        DatabaseError.chain(from: error).contains { ($0 as? SerializationError)?.code == pattern }
    }
}
