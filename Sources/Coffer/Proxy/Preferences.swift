import Dispatch
public import Foundation

/// Encrypted preferences with a `UserDefaults`-style API, stored in a Coffer database.
///
/// Each suite lives in its own collection (`coffer.preferences.<suite>`) and is written through a
/// ``ConnectionProxy``: a set updates memory and returns at once; within a few milliseconds the
/// keys changed meanwhile are handed to the proxy together and reach the database in its next
/// coalesced batch. Reads never touch the database — the suite's values are
/// loaded once when the instance is created and kept current by its own writes and by commits of
/// other writers to the same collection.
///
/// ```swift
/// let prefs = try Preferences(database: db, suite: "app")
/// try prefs.register(defaults: ["volume": 0.8])
/// prefs.set(true, forKey: "onboarded")
/// prefs.double(forKey: "volume")        // 0.8
/// try prefs.flush()                      // durable
/// ```
///
/// The getters convert between types exactly as Foundation's `UserDefaults` does on Linux for the
/// same stored value (`integer(forKey:)` on `"42"` is 42, `bool(forKey:)` on `"YES"` is true, …),
/// with three deliberate differences, where Linux Foundation loses or traps:
/// - a non-file URL is kept whole (Linux keeps only its path); ``url(forKey:)`` returns it and
///   ``string(forKey:)`` returns nil, as for a registered URL;
/// - ``url(forKey:)`` on data that is not a keyed archive of a URL returns nil (Linux traps);
/// - `Int.max` reads back as `Int.max` (Linux stores it as an `Int64` that every getter but
///   `object(forKey:)` misreads as 0).
///
/// The database file is encrypted by SQLCipher; pass a `chain` with an encryption stage to also
/// encrypt each value with its own key. ``Database/close(timeout:)-11g9c`` commits what the instance
/// still holds; afterwards getters return the last values, setters do nothing (logged once), and
/// throwing calls throw ``DatabaseError`` `.closed`.
public final class Preferences: Sendable {
    /// Posted after preferences changed, on a queue owned by the instance; `object` is the
    /// ``Preferences`` and `userInfo` holds ``changedKeysKey`` and ``isExternalKey``.
    ///
    /// Local changes are coalesced: a burst of sets is announced once, a few milliseconds later.
    public static let didChangeNotification = Notification.Name("CofferPreferencesDidChange")
    /// The `userInfo` key of the changed keys (`Set<String>`) in ``didChangeNotification``.
    public static let changedKeysKey = "keys"
    /// The `userInfo` key of whether the change came from another writer (`Bool`).
    public static let isExternalKey = "isExternal"

    /// How long local changes are gathered before they are announced.
    static let announcementDelay = DispatchTimeInterval.milliseconds(2)

    /// The codec that stores ``PreferenceValue``s as JSON; build a chain on it to add stages.
    public static var codec: Serializer { .codable(PreferenceValue.self) }

    /// The collection a suite is stored in.
    public static func collection(forSuite suite: String) -> String {
        "coffer.preferences.\(suite)"
    }

    /// The database the preferences are stored in.
    public let database: Database
    /// The suite's name.
    public let suite: String
    /// The collection holding the suite.
    public let collection: String

    let proxy: ConnectionProxy
    let state: Locked<PreferencesState>
    /// Serializes hand-offs to the proxy (see ``handOff(takingChangedKeys:)``).
    ///
    /// It counts the chunks handed over: a real value, because `Locked` must never hold an empty one.
    let handOffLock = Locked(0)
    /// Posts notifications and feeds ``changes``, in order.
    let deliveryQueue: DispatchQueue
    private let observer: PreferencesObserver
    /// The ``Database/modifiedNotification`` subscription, removed when the instance is released.
    private let observerToken: Locked<any NSObjectProtocol>

    /// Opens the preferences of `suite`, loading its stored values.
    ///
    /// Registers `chain` (default: JSON of ``PreferenceValue``, i.e. `SerializerChain(codec:
    /// Preferences.codec)`) for the suite's collection. Several instances may share a suite; each
    /// sees the others' commits.
    /// - Complexity: reads every value of the suite once.
    /// - Throws: ``DatabaseError`` when a connection cannot be opened or a stored value does not
    ///   decode (`.serialization`, naming the key).
    public init(database: Database, suite: String = "default", chain: SerializerChain? = nil) throws {
        let collection = Self.collection(forSuite: suite)
        database.registerSerializer(chain ?? SerializerChain(codec: Self.codec), forCollection: collection)
        self.database = database
        self.suite = suite
        self.collection = collection
        self.proxy = try ConnectionProxy(database: database)
        self.deliveryQueue = DispatchQueue(label: "coffer.preferences.\(suite)")
        // Subscribe before loading: commits from then on are buffered until the instance is ready.
        let observer = PreferencesObserver()
        self.observer = observer
        let token = Self.subscribe(observer, to: database)
        let loaded: [String: PreferencesEntry]
        do {
            loaded = try proxy.readConnection.read { tx in
                var values: [String: PreferencesEntry] = [:]
                try tx.enumerateKeysAndObjects(inCollection: collection, as: PreferenceValue.self) { key, value, _ in
                    values[key] = PreferencesEntry(value: value)
                }
                return values
            }
        } catch {
            NotificationCenter.default.removeObserver(token)
            throw error
        }
        self.observerToken = Locked(token)
        self.state = Locked(PreferencesState(entries: loaded))
        observer.attach(self)
        database.closeParticipants.withLock { $0.add(self) }
    }

    deinit {
        // Changes not handed over yet go to the proxy, whose queued write outlives this instance.
        handOff()
        observerToken.withLock { NotificationCenter.default.removeObserver($0) }
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.finish() }
    }

    /// Sets in-memory defaults, consulted for keys that have no stored value; never persisted.
    ///
    /// Values follow the rules of the `Any?` setter, except that URLs are kept as URLs
    /// (as `UserDefaults` keeps registered values as given). Registering again merges, later wins.
    /// - Throws: ``DatabaseError`` `.typeMismatch` (naming the key) for a value that is neither a
    ///   property-list value nor `Encodable`; nothing is registered then. `.closed` once the
    ///   database is closed.
    public func register(defaults: [String: Any]) throws {
        try database.gate.checkOpen()
        var converted: [String: PreferenceValue] = [:]
        for (key, value) in defaults {
            converted[key] = try registeredValue(value, forKey: key)
        }
        state.withLock { $0.registered.merge(converted) { $1 } }
    }

    /// Every stored value merged over the registered defaults, as property-list objects.
    /// - Complexity: O(n) in the number of keys.
    public func dictionaryRepresentation() -> [String: Any] {
        let values = state.withLock { state -> [String: PreferenceValue] in
            var merged = state.registered
            for (key, entry) in state.entries {
                if let value = entry.value { merged[key] = value }
            }
            return merged
        }
        return values.mapValues(\.propertyListObject)
    }

    /// Blocks until every change made before the call is committed (see ``ConnectionProxy/flush()-9k58q``).
    /// - Throws: the error of a failed write (the changes stay pending and are retried), or
    ///   ``DatabaseError`` `.misuse` when called inside a read-write transaction, `.closed` once
    ///   the database is closed.
    public func flush() throws {
        handOff()
        try proxy.flush()
    }

    /// Returns once every change made before the call is committed.
    /// - Throws: the error of a failed write; the changes stay pending and are retried.
    public func flush() async throws {
        handOff()
        try await proxy.flush()
    }

    /// Waits until every change is committed; returns whether it was (``flush()-7y7c4`` says why not).
    @discardableResult
    public func synchronize() -> Bool {
        (try? flush()) != nil
    }

    /// The number of keys changed here and not yet committed.
    public var pendingChangeCount: Int {
        handOff()
        return proxy.pendingChangeCount
    }

    /// Hands every change not yet given to the proxy over now.
    func handOff() {
        handOff(takingChangedKeys: false)
    }

    /// How many keys one hand-off step collects under the state lock.
    static let handOffChunk = 128

    /// Hands every unstaged change to the proxy; with `takingChangedKeys` (the announcement) it also
    /// takes the list of changed keys and returns it.
    ///
    /// Hand-offs are serialized by `handOffLock`, so a key's changes reach the proxy in the order they
    /// were made. The state lock is held only to collect one chunk of keys or to record their versions,
    /// never while the rows are built or the proxy stages them, so a getter waits at most one chunk's
    /// bookkeeping however large the burst.
    @discardableResult
    func handOff(takingChangedKeys: Bool) -> [String] {
        let collection = collection
        return handOffLock.withLock { handedOver in
            let taken = takingChangedKeys ? state.withLock { $0.takeChangedKeys() } : nil
            var next = 0
            while true {
                let changes = state.withLock { state -> [(key: String, value: PreferenceValue?)]? in
                    // A flush walks the live list (it may grow meanwhile); the announcement its own.
                    let count = taken?.count ?? state.changedKeys.count
                    guard next < count else { return nil }
                    let end = min(next + Self.handOffChunk, count)
                    defer { next = end }
                    if let taken { return state.beginHandOff(taken[next..<end]) }
                    return state.beginHandOff(state.changedKeys[next..<end])
                }
                guard let changes else { break }
                guard !changes.isEmpty else { continue }
                let rows = changes.map {
                    (CollectionKey(collection: collection, key: $0.key), $0.value as (any Sendable)?)
                }
                let versions = proxy.stageBatch(rows)
                state.withLock { $0.finishHandOff(changes, versions: versions) }
                handedOver &+= 1
            }
            return taken ?? []
        }
    }

    private func registeredValue(_ value: Any, forKey key: String) throws -> PreferenceValue {
        if let converted = PreferenceValue(registered: value) { return converted }
        if let encodable = value as? any Encodable { return try encodeCodable(encodable, forKey: key) }
        throw DatabaseError(
            .typeMismatch, "a \(type(of: value)) cannot be stored in preferences", collection: collection, key: key)
    }

    func encodeCodable(_ value: any Encodable, forKey key: String) throws -> PreferenceValue {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .codable(try encoder.encode(value))
        } catch {
            throw DatabaseError(
                .serialization, "cannot encode the \(type(of: value)) as JSON", collection: collection, key: key,
                underlying: error)
        }
    }
}
