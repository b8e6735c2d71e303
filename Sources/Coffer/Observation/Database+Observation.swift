/// Observing values: a read delivered again after each commit that touched what it reads.
extension Database {
    /// Observes the value `fetch` reads, re-reading after each commit that touched `region`.
    ///
    /// ```swift
    /// let counts = db.observe(.collection("notes")) { tx in
    ///     try tx.numberOfKeys(inCollection: "notes")
    /// }
    /// for try await count in counts { print(count) }
    /// ```
    ///
    /// `fetch` runs on the observation's own queue, inside a read transaction that must not
    /// escape it; it should read only inside `region`, as other commits do not re-run it.
    /// - Returns: a sequence that starts observing when iterated (see ``DatabaseObservation``).
    public func observe<Value: Sendable>(
        _ region: DatabaseRegion, fetch: @escaping @Sendable (ReadTransaction) throws -> Value
    ) -> DatabaseObservation<Value> {
        DatabaseObservation(database: self, region: region, fetch: fetch, isDuplicate: nil)
    }

    /// Observes one row's object, decoded as `T` (nil when the row does not exist); rows the
    /// default codec stored as JSON are decoded, as typed reads decode them.
    ///
    /// Re-read after each commit that set, replaced, touched or removed the row.
    /// - Returns: a sequence that ends with ``DatabaseError`` `.typeMismatch` or `.serialization`
    ///   when the stored object is not a `T`.
    public func observeObject<T: Decodable & Sendable>(
        forKey key: String, inCollection collection: String?, as type: T.Type
    ) -> DatabaseObservation<T?> {
        observe(.row(forKey: key, inCollection: collection)) { tx in
            try tx.object(forKey: key, inCollection: collection, as: T.self)
        }
    }

    /// Observes one row's object as stored (nil when the row does not exist).
    ///
    /// Re-read after each commit that set, replaced, touched or removed the row.
    public func observeObject(
        forKey key: String, inCollection collection: String?
    ) -> DatabaseObservation<(any Sendable)?> {
        observe(.row(forKey: key, inCollection: collection)) { tx in
            try tx.object(forKey: key, inCollection: collection)
        }
    }

    /// Observes the keys of a collection, in the order ``ReadTransaction/allKeys(inCollection:)``
    /// returns them; a commit that leaves the list as it was delivers nothing.
    /// - Complexity: each read is O(n) in the collection's rows.
    public func observeKeys(inCollection collection: String?) -> DatabaseObservation<[String]> {
        observe(.collection(collection)) { tx in
            try tx.allKeys(inCollection: collection)
        }
        .removingDuplicates()
    }

    /// Observes the rows a ``SecondaryIndex`` query matches, in the order the query returns them;
    /// a commit that leaves the list as it was delivers nothing.
    ///
    /// Re-run after each commit that changed a row in a collection the index covers.
    /// - Returns: a sequence that ends with ``DatabaseError`` `.extensionFailure` when no secondary
    ///   index is registered as `name`, or `.invalidQuery` for a query that does not compile.
    public func observeKeys(
        matching query: DatabaseQuery, inSecondaryIndex name: String
    ) -> DatabaseObservation<[CollectionKey]> {
        observe(.extension(name)) { tx in
            guard let index = tx.secondaryIndex(name) else {
                throw DatabaseError(.extensionFailure, "no secondary index is registered as \"\(name)\"")
            }
            return try index.keys(matching: query)
        }
        .removingDuplicates()
    }

    /// Observes the rows a ``FullTextSearch`` expression matches, in rowid order; a commit that
    /// leaves the list as it was delivers nothing.
    ///
    /// Re-run after each commit that changed a row in a collection the search covers.
    /// - Returns: a sequence that ends with ``DatabaseError`` `.extensionFailure` when no full-text
    ///   search is registered as `name`, or `.invalidQuery` for an expression SQLite cannot parse.
    public func observeKeys(
        matching expression: String, inFullTextSearch name: String
    ) -> DatabaseObservation<[CollectionKey]> {
        observe(.extension(name)) { tx in
            guard let search = tx.fullTextSearch(name) else {
                throw DatabaseError(.extensionFailure, "no full-text search is registered as \"\(name)\"")
            }
            return try search.keys(matching: expression)
        }
        .removingDuplicates()
    }
}
