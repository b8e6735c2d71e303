/// A secondary index inside one transaction, returned by `tx.secondaryIndex(name)` or
/// `tx.extension(name, as: SecondaryIndexTransaction.self)`.
///
/// Queries see the transaction's snapshot, including its own uncommitted writes.
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class SecondaryIndexTransaction {
    let context: ExtensionContext
    var spareValues: [String: any DatabaseValueConvertible] = [:]
    let index: SecondaryIndex
    let sql: SecondaryIndexSQL

    init(context: ExtensionContext, index: SecondaryIndex, sql: SecondaryIndexSQL) {
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
extension SecondaryIndexTransaction: Sendable {}
