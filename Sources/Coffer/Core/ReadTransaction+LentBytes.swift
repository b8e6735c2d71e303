import CofferSQLite

/// Reads that lend a row's stored bytes instead of copying or decoding them.
extension ReadTransaction {
    /// Lends the stored bytes of the object for `key` in `collection` to `body`, for reading a row at
    /// the storage engine's own cost: nothing is copied, decoded or cached, and the object cache is
    /// not consulted.
    ///
    /// `bytes` are the object exactly as stored, as in
    /// ``enumerateKeysAndSerializedObjects(inCollection:_:)``, and stay valid only during the call.
    /// - Returns: false (without calling `body`) when the row does not exist.
    /// - Throws: ``DatabaseError`` from reading, or whatever `body` throws.
    @discardableResult
    public func withSerializedObject(
        forKey key: String, inCollection collection: String?, _ body: (_ bytes: RawSpan) throws -> Void
    ) throws -> Bool {
        try checkActive()
        return try withRow(SQL.dataForKey, CollectionKey(collection: collection ?? "", key: key)) { stmt in
            try stmt.withUnsafeBytes(0) { bytes in try body(bytes.bytes) }
        }
    }

    /// Lends each key of `collection` and its object's stored bytes to `body`, for reading rows at the storage
    /// engine's own cost: nothing is copied, decoded or cached.
    ///
    /// `bytes` are the object exactly as stored — what ``serializedObject(forKey:inCollection:)`` returns: the
    /// output of the collection's chain, its blob header included when a stage ran — and stay valid only during
    /// that call of `body` (a `RawSpan` cannot escape it); copy whatever must outlive it. Rows come in SQLite's
    /// order, as in the other enumerations, and changing the database inside `body` without setting `stop` throws
    /// `mutationDuringEnumeration`.
    /// - Throws: ``DatabaseError`` from reading, or whatever `body` throws.
    public func enumerateKeysAndSerializedObjects(
        inCollection collection: String?, _ body: (_ key: String, _ bytes: RawSpan, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachRow(SQL.enumerateObjectsInCollection, binding: collection ?? "") { stmt, stop in
            let key = stmt.text(0)
            try stmt.withUnsafeBytes(1) { bytes in try body(key, bytes.bytes, &stop) }
        }
    }
}
