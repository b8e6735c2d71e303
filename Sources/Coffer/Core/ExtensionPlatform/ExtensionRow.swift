import CofferSQLite

/// A value that is deserialized only when asked for (YapDatabase's proxy object).
///
/// Extension hooks receive rows whose object or metadata may not be at hand (a touch, a
/// metadata-only replace); reading ``value()`` loads it then. Valid only inside the
/// transaction that produced it.
public final class LazyValue {
    private var loaded: (any Sendable)??
    private let loader: () throws -> (any Sendable)?

    init(_ value: (any Sendable)?) {
        loaded = .some(value)
        loader = { value }
    }

    init(loader: @escaping () throws -> (any Sendable)?) {
        self.loader = loader
    }

    /// Whether the value has been deserialized already.
    public var isLoaded: Bool { loaded != nil }

    /// The value, deserializing it on first use.
    /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
    public func value() throws -> (any Sendable)? {
        if let loaded { return loaded }
        let value = try loader()
        loaded = .some(value)
        return value
    }

    /// The value as `T`, or nil when absent or of another type.
    ///
    /// In a collection without a registered codec the value is an ``EncodedValue`` (whether it
    /// came from the writer, a cache or the disk); a `Decodable` `T` is decoded from it, so a
    /// typed reader sees the same row whatever its origin. Bytes that do not decode as `T` are a
    /// value of another type: nil.
    /// - Throws: ``DatabaseError`` when the stored bytes do not decode.
    public func value<T>(as type: T.Type) throws -> T? {
        guard let value = try value() else { return nil }
        if let typed = value as? T { return typed }
        guard let encoded = value as? EncodedValue, let decodable = T.self as? any Decodable.Type else { return nil }
        return (try? encoded.decode(as: decodable)) as? T
    }
}

@available(*, unavailable, message: "valid only inside the transaction that produced it")
extension LazyValue: Sendable {}

/// One row as an extension hook sees it.
struct ExtensionRow {
    let collectionKey: CollectionKey
    let rowid: Int64
    let object: LazyValue
    let metadata: LazyValue
}

/// What an extension's transaction object can reach: the enclosing transaction and SQLite.
struct ExtensionContext {
    /// The core transaction the extension serves (read-only or read-write).
    let transaction: ReadTransaction
    /// The name the extension was registered under.
    let registeredName: String

    /// The connection's SQLite handle, for the extension's own tables.
    var sqlite: SQLiteConnection { transaction.core.sqlite }

    /// The read-write transaction, when this is one.
    var writeTransaction: ReadWriteTransaction? { transaction as? ReadWriteTransaction }
}
