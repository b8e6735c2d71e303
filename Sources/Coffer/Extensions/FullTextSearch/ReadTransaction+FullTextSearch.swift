/// Reaching a full-text search from a transaction.
extension ReadTransaction {
    /// The full-text search registered as `name`, or nil when no full-text search has that name in
    /// this transaction's snapshot (a reader that began before the registration committed).
    public func fullTextSearch(_ name: String) -> FullTextSearchTransaction? {
        guard let search = ext(name, as: FullTextSearchTransaction.self),
            (try? search.context.isRegisteredInSnapshot()) == true
        else {
            return nil
        }
        return search
    }
}
