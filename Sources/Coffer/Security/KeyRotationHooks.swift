/// Callbacks around a data-key rotation (``Database/rotateKey(to:cipher:)``).
public struct KeyRotationHooks: Sendable {
    /// Runs after the re-encrypted copy was written and verified, just before it replaces the file: persist the new
    /// key here (keep the old one until ``didRotate`` runs).
    ///
    /// Throwing cancels the rotation and leaves the file and its key unchanged.
    public var willReplaceFile: (@Sendable (_ newKey: DatabaseKey) throws -> Void)?
    /// Runs once the new file is in place and every connection uses the new key: the old key
    /// can be discarded now.
    public var didRotate: (@Sendable () -> Void)?

    /// Creates hooks; both are optional.
    public init(
        willReplaceFile: (@Sendable (_ newKey: DatabaseKey) throws -> Void)? = nil,
        didRotate: (@Sendable () -> Void)? = nil
    ) {
        self.willReplaceFile = willReplaceFile
        self.didRotate = didRotate
    }
}
