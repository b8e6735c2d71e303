import Coffer

extension Expectation {
    /// These contents as a keyring missing a key sees them: the rows at `rows` fail as
    /// `unknownKeyID` (object, and metadata where the row has some) instead of reading back.
    func failingAsUnknownKey(_ rows: Set<CollectionKey>) -> Expectation {
        let unknown = ErrorSpec(code: "serialization", serializationCode: "unknownKeyID")
        var expectation = self
        var errors: [RowErrorSpec] = []
        expectation.rows = self.rows?.filter { row in
            guard rows.contains(CollectionKey(collection: row.collection, key: row.key)) else { return true }
            errors.append(RowErrorSpec(collection: row.collection, key: row.key, column: "object", error: unknown))
            if row.metadata != nil {
                errors.append(RowErrorSpec(collection: row.collection, key: row.key, column: "metadata", error: unknown))
            }
            return false
        }
        expectation.rowErrors = errors
        return expectation
    }
}
