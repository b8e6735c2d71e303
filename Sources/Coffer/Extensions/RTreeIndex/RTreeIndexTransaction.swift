/// An R*Tree index inside one transaction, returned by `tx.rtreeIndex(name)` or
/// `tx.extension(name, as: RTreeIndexTransaction.self)`.
///
/// Queries see the transaction's snapshot, including its own uncommitted writes.
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class RTreeIndexTransaction {
    let context: ExtensionContext
    var spareValues: [String: Double] = [:]
    let index: RTreeIndex
    let sql: RTreeIndexSQL

    init(context: ExtensionContext, index: RTreeIndex, sql: RTreeIndexSQL) {
        self.context = context
        self.index = index
        self.sql = sql
    }

    /// The name the index is registered under.
    public var registeredName: String { context.registeredName }

    /// The version tag the index was registered with.
    public var versionTag: String { index.versionTag }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension RTreeIndexTransaction: Sendable {}

/// Reaching an R*Tree index from a transaction.
extension ReadTransaction {
    /// The R*Tree index registered as `name`, or nil when no R*Tree index has that name in this
    /// transaction's snapshot (a reader that began before the registration committed).
    public func rtreeIndex(_ name: String) -> RTreeIndexTransaction? {
        guard let index = ext(name, as: RTreeIndexTransaction.self),
            (try? index.context.isRegisteredInSnapshot()) == true
        else { return nil }
        return index
    }
}
