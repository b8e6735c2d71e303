/// Searches whose matches come back as a typed collection's objects.
extension FullTextSearchTransaction {
    /// Calls `body` with the key and object of each row of `collection` matching `expression`, in
    /// rowid order; matches in other collections the search covers are skipped.
    /// - Throws: as ``enumerateKeysAndObjects(matching:_:)``, and ``DatabaseError`` `.typeMismatch`
    ///   when the collection's registered codec stores another type.
    public func enumerateKeysAndObjects<O, M>(
        matching expression: String, in collection: TypedCollection<O, M>,
        _ body: (_ key: String, _ object: O, _ stop: inout Bool) throws -> Void
    ) throws {
        try context.transaction().enumerateMatches(
            in: collection, { try enumerateKeysAndObjects(matching: expression, $0) }, body)
    }

    /// The key and object of every row of `collection` matching `expression`, in rowid order.
    /// - Throws: as ``enumerateKeysAndObjects(matching:in:_:)``.
    public func objects<O, M>(matching expression: String, in collection: TypedCollection<O, M>) throws -> [(
        key: String, object: O
    )] {
        var objects: [(key: String, object: O)] = []
        try enumerateKeysAndObjects(matching: expression, in: collection) { key, object, _ in
            objects.append((key, object))
        }
        return objects
    }
}
