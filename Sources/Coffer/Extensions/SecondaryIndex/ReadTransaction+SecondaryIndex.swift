/// Reaching a secondary index from a transaction.
extension ReadTransaction {
    /// The secondary index registered as `name`, or nil when no secondary index has that name.
    public func secondaryIndex(_ name: String) -> SecondaryIndexTransaction? {
        ext(name, as: SecondaryIndexTransaction.self)
    }
}
