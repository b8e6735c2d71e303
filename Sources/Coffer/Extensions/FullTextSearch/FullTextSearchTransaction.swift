/// A full-text search inside one transaction, returned by `tx.fullTextSearch(name)` or
/// `tx.extension(name, as: FullTextSearchTransaction.self)`.
///
/// Searches see the transaction's snapshot, including its own uncommitted writes.
///
/// Valid only inside the transaction's closure; every method throws `misuse` afterwards.
public final class FullTextSearchTransaction {
    let context: ExtensionContext
    var spareValues: [String: String] = [:]
    let search: FullTextSearch
    let sql: FullTextSearchSQL

    init(context: ExtensionContext, search: FullTextSearch, sql: FullTextSearchSQL) {
        self.context = context
        self.search = search
        self.sql = sql
    }

    /// The name the search is registered under.
    public var registeredName: String { context.registeredName }

    /// The version tag the search was registered with.
    public var versionTag: String { search.versionTag }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension FullTextSearchTransaction: Sendable {}
