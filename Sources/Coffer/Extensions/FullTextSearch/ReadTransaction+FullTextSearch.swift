/// Reaching a full-text search from a transaction.
extension ReadTransaction {
    /// The full-text search registered as `name`, or nil when no full-text search has that name.
    public func fullTextSearch(_ name: String) -> FullTextSearchTransaction? {
        ext(name, as: FullTextSearchTransaction.self)
    }
}
