/// Marks a commit made by a proxy's batch: the ``Changeset/customObject`` of that commit.
///
/// Every change the proxy made up to ``version`` is in the database once this commit is visible.
/// Observers of ``Database/changes`` use it to tell a proxy's own commits from other writers'.
public struct ConnectionProxyCommit: Sendable, Hashable {
    /// The proxy's process-unique identifier.
    public let proxyID: UInt64
    /// The last change version the batch covered.
    public let version: UInt64
}
