/// Observing typed collections.
extension Database {
    /// Observes one row of a typed collection (nil when it does not exist).
    ///
    /// ```swift
    /// for try await note in db.observeObject(forKey: "n1", in: notes) { print(note?.title ?? "gone") }
    /// ```
    ///
    /// Re-read after each commit that set, replaced, touched or removed the row.
    /// - Returns: a sequence that ends with ``DatabaseError`` `.typeMismatch` when the collection
    ///   stores another type, or `.serialization` when the row does not decode.
    public func observeObject<O, M>(forKey key: String, in collection: TypedCollection<O, M>)
        -> DatabaseObservation<O?>
    {
        observe(.row(forKey: key, in: collection)) { tx in try tx.object(forKey: key, in: collection) }
    }

    /// Observes the keys of a typed collection, as ``observeKeys(inCollection:)`` does.
    public func observeKeys<O, M>(in collection: TypedCollection<O, M>) -> DatabaseObservation<[String]> {
        observeKeys(inCollection: collection.name)
    }
}

extension DatabaseRegion {
    /// One row of a typed collection, as ``row(forKey:inCollection:)`` names one by its collection's name.
    public static func row<O, M>(forKey key: String, in collection: TypedCollection<O, M>) -> DatabaseRegion {
        row(forKey: key, inCollection: collection.name)
    }

    /// Every row of a typed collection (its key list included).
    public static func collection<O, M>(_ collection: TypedCollection<O, M>) -> DatabaseRegion {
        self.collection(collection.name)
    }
}
