import CofferSQLite
import Foundation

/// Shared row-level helpers: statements, decoding through the chains, casting.
extension ReadTransaction {
    func scalar(_ sql: StaticString, _ text: String? = nil) throws -> Int64? {
        let stmt = try sqlite.cachedStatement(sql)
        defer { stmt.reset() }
        if let text { try stmt.bind(text, at: 1) }
        return try stmt.step() ? stmt.int64(0) : nil
    }

    func rowid(for ck: CollectionKey) throws -> Int64? {
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(SQL.rowidForKey)
            defer { stmt.reset() }
            try stmt.bind(ck.collection, at: 1)
            try stmt.bind(ck.key, at: 2)
            return try stmt.step() ? stmt.int64(0) : nil
        }
    }

    /// The highest rowid of `collection` (0 when it is empty): where a pass over the rows that
    /// exist now ends, whatever is inserted meanwhile.
    func highestRowid(inCollection collection: String) throws -> Int64 {
        try mapSQLite(collection: collection) { try scalar(SQL.highestRowidInCollection, collection) ?? 0 }
    }

    /// Column 0 (data or metadata) of the row `ck`, using a `SELECT <column>` statement.
    func fetchColumn(_ sql: StaticString, _ ck: CollectionKey) throws -> Data? {
        var found = false
        return try fetchColumn(sql, ck, found: &found)
    }

    func fetchColumn(_ sql: StaticString, _ ck: CollectionKey, found: inout Bool) throws -> Data? {
        var data: Data?
        found = try withRow(sql, ck) { stmt in data = stmt.data(0) }
        return data
    }

    /// Column 0 of the row for `key` in `collection` copied into `bytes` (see
    /// `Statement.copyBytes`); false when there is no such row or the column is NULL, as
    /// ``fetchColumn(_:_:)`` gives nil for both.
    func fetchColumn(_ sql: StaticString, collection: String, key: String, into bytes: inout Data) throws -> Bool {
        try mapSQLite(collection: collection, key: key) {
            try sqlite.copyColumn(0, of: sql, into: &bytes, keeping: collection, at: 1, lending: key, at: 2) == true
        }
    }

    /// Lets go of a reused buffer's storage once a value larger than ``lentBytesLimit`` has been
    /// handed out of it.
    static func releaseIfLarge(_ bytes: inout Data) {
        if bytes.count > lentBytesLimit { bytes = Data() }
    }

    /// Runs a `SELECT … WHERE collection = ? AND key = ?` statement for `ck` and calls `read` on
    /// its row (whose errors pass through as they are); false when there is none.
    func withRow(_ sql: StaticString, _ ck: CollectionKey, _ read: (Statement) throws -> Void) throws -> Bool {
        try mapSQLite(collection: ck.collection, key: ck.key) {
            let stmt = try sqlite.cachedStatement(sql)
            var found = false
            // The collection stays bound (most reads share it); the key is lent for this step only.
            try stmt.bindKept(ck.collection, at: 1)
            try stmt.withLent(ck.key, at: 2) {
                defer { stmt.reset() }
                guard try stmt.step() else { return }
                found = true
                try read(stmt)
            }
            return found
        }
    }

    func decodeObject(_ data: Data, _ ck: CollectionKey) throws -> any Sendable {
        let chain = configs.config(for: ck.collection).objectChain
        do {
            return try chain.deserialize(data, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot decode the stored object", ck)
        }
    }

    /// Turns a stored object into `T` the way `read` (the chain's ``SerializerChain/directRead(as:)``
    /// for `T`) allows: as is, decoded straight into `T`, or through the boxed path and a cast.
    func decodeObject<T: Decodable & Sendable>(
        _ data: Data, as type: T.Type, chain: SerializerChain, _ read: SerializerChain.DirectRead?,
        collection: String, key: String
    ) throws -> T {
        switch read {
        case .asIs?:
            // T is Data, checked by `directRead`: the bit pattern is the value. (The typed reads and
            // enumerations hand such rows out of a reused buffer instead.)
            return unsafeBitCast(data, to: T.self)
        case .decode?:
            do {
                return try chain.deserializeDirectly(data, as: T.self, collection: collection, key: key)
            } catch {
                throw Self.serializationError(
                    error, "cannot decode the stored object", CollectionKey(collection: collection, key: key))
            }
        case nil:
            let ck = CollectionKey(collection: collection, key: key)
            return try castDecoding(try decodeObject(data, ck), to: T.self, ck)
        }
    }

    func decodeMetadata(_ data: Data, _ ck: CollectionKey) throws -> any Sendable {
        let chain = configs.config(for: ck.collection).metadataChain
        do {
            return try chain.deserialize(data, collection: ck.collection, key: ck.key)
        } catch {
            throw Self.serializationError(error, "cannot decode the stored metadata", ck)
        }
    }

    static func serializationError(_ error: any Error, _ message: String, _ ck: CollectionKey) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        let underlying: any Error & Sendable =
            (error as? SerializationError) ?? SerializationError(.codecFailed, stage: "codec", reason: "\(error)")
        return DatabaseError(.serialization, message, collection: ck.collection, key: ck.key, underlying: underlying)
    }

    func cast<T>(_ value: any Sendable, to type: T.Type, _ ck: CollectionKey) throws -> T {
        if let typed = value as? T { return typed }
        throw DatabaseError(
            .typeMismatch, "the stored value is a \(Swift.type(of: value)), not a \(T.self)",
            collection: ck.collection, key: ck.key)
    }

    func castDecoding<T: Decodable>(_ value: any Sendable, to type: T.Type, _ ck: CollectionKey) throws -> T {
        if let typed = value as? T { return typed }
        // Rows of collections without a codec are EncodedValues in every cache (the writer's too).
        if let encoded = value as? EncodedValue {
            return try decode(encoded, as: T.self, ck)
        }
        return try cast(value, to: T.self, ck)
    }

    private func decode<T: Decodable>(_ encoded: EncodedValue, as type: T.Type, _ ck: CollectionKey) throws -> T {
        do {
            return try encoded.decode(as: T.self)
        } catch {
            throw Self.serializationError(error, "cannot decode the stored value as \(T.self)", ck)
        }
    }
}
