/// Reaching a secondary index from a transaction.
extension ReadTransaction {
    /// The secondary index registered as `name`, or nil when no secondary index has that name in
    /// this transaction's snapshot (a reader that began before the registration committed).
    public func secondaryIndex(_ name: String) -> SecondaryIndexTransaction? {
        guard let index = ext(name, as: SecondaryIndexTransaction.self),
            (try? index.context.isRegisteredInSnapshot()) == true
        else {
            return nil
        }
        return index
    }
}
