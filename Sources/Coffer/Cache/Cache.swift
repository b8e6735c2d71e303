/// A strict least-recently-used cache with a fixed count limit, the equivalent of YapDatabase's `YapCache`.
///
/// Adding an entry past ``countLimit`` evicts the least recently used entry during that same call,
/// never later. Every successful ``value(forKey:)`` and every ``setValue(_:forKey:)`` makes its
/// entry the most recently used one; ``peekValue(forKey:)`` and ``contains(_:)`` read without
/// touching the order.
///
/// `Cache` is a value type and is **not** thread-safe: a connection owns its caches and uses them
/// only on its serial queue, which is why no lock is needed. Entries live in one contiguous buffer
/// linked by slot numbers, so lookups, insertions, removals and evictions are O(1) and allocate
/// nothing per entry once the buffer has grown.
///
/// ```swift
/// var cache = Cache<String, Int>(countLimit: 2)
/// cache.setValue(1, forKey: "a")
/// cache.setValue(2, forKey: "b")
/// _ = cache.value(forKey: "a")      // "a" is now the most recently used
/// cache.setValue(3, forKey: "c")    // evicts "b"
/// cache.keys                        // ["c", "a"]
/// ```
public struct Cache<Key: Hashable, Value> {
    /// One cached pair, stored in the recency list.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
    }

    /// Maps each key to its slot in `list`.
    private var index: [Key: Int32] = [:]
    /// The entries, most recently used first.
    @usableFromInline var list = LRUList<Entry>()
    /// Where an entry keeps its value, asked once: the key path lookup costs more than a read.
    @usableFromInline let valueOffset = MemoryLayout<Entry>.offset(of: \Entry.value) ?? 0
    /// The normalised limit (never negative).
    private var limit: Int

    /// Hit, miss and eviction counts since the cache was created or ``resetStatistics()`` was called.
    public private(set) var statistics = CacheStatistics()

    /// Creates an empty cache holding at most `countLimit` entries.
    ///
    /// - Parameter countLimit: The maximum number of entries; `0` means unlimited. Negative values
    ///   are treated as `0`.
    /// - Complexity: O(1).
    public init(countLimit: Int = 40) {
        limit = max(0, countLimit)
    }

    /// The maximum number of entries; `0` means unlimited.
    ///
    /// Lowering the limit below ``count`` evicts least recently used entries at once. Negative
    /// values are treated as `0`.
    ///
    /// - Complexity: O(*k*) to set, where *k* is the number of entries evicted; O(1) to get.
    public var countLimit: Int {
        get { limit }
        set {
            limit = max(0, newValue)
            evictToLimit()
        }
    }

    /// The number of entries in the cache.
    ///
    /// - Complexity: O(1).
    public var count: Int { list.count }

    /// Whether the cache holds no entry.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool { list.count == 0 }

    /// Returns the value cached for `key` and marks the entry most recently used.
    ///
    /// Counts a hit or a miss in ``statistics``.
    ///
    /// - Complexity: O(1) on average (one hash lookup).
    public mutating func value(forKey key: Key) -> Value? {
        guard let slot = index[key] else {
            statistics.missCount &+= 1
            return nil
        }
        statistics.hitCount &+= 1
        list.moveToFront(slot)
        return withValue(atSlot: slot) { value in copy value }
    }

    /// Calls `body` with the value cached for `key`, borrowed in place, and marks the entry most
    /// recently used; nil (without calling `body`) when there is none.
    ///
    /// Counts a hit or a miss in ``statistics``, as ``value(forKey:)`` does, but copies neither the
    /// entry nor the value: a reader that only casts or inspects the value pays for nothing else.
    ///
    /// - Complexity: O(1) on average (one hash lookup).
    public mutating func withValue<R>(forKey key: Key, _ body: (borrowing Value) throws -> R) rethrows -> R? {
        guard let slot = touch(key) else { return nil }
        return try withValue(atSlot: slot, body)
    }

    /// The slot of `key`'s entry, marked most recently used and counted as a hit; nil, counted as
    /// a miss, when there is none.
    ///
    /// The slot stays valid until the cache next changes: read it at once with
    /// ``withValue(atSlot:_:)``. The two halves let a caller in another module specialize its own
    /// part (the read) while the lookup stays specialized here.
    @usableFromInline
    mutating func touch(_ key: Key) -> Int32? {
        guard let slot = index[key] else {
            statistics.missCount &+= 1
            return nil
        }
        statistics.hitCount &+= 1
        list.moveToFront(slot)
        return slot
    }

    /// Calls `body` with the value in `slot` (from ``touch(_:)``), borrowed in place.
    @inlinable
    func withValue<R>(atSlot slot: Int32, _ body: (borrowing Value) throws -> R) rethrows -> R {
        try list.withElementAddress(at: slot) { entry in
            try body(entry.advanced(by: valueOffset).assumingMemoryBound(to: Value.self).pointee)
        }
    }

    /// Returns the value cached for `key` without changing the recency order or the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func peekValue(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        return list[slot].value
    }

    /// Whether an entry exists for `key`; does not change the recency order or the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func contains(_ key: Key) -> Bool {
        index[key] != nil
    }

    /// Stores `value` for `key`, replacing any previous value, and marks the entry most recently used.
    ///
    /// When the key is new and the cache is full, the least recently used entry is evicted first
    /// and its storage slot is reused.
    ///
    /// - Complexity: O(1) on average (amortized while the buffer grows).
    public mutating func setValue(_ value: Value, forKey key: Key) {
        let isFull = limit > 0 && list.count >= limit
        // A full cache reuses the least recently used slot; otherwise a new slot is appended.
        let candidate = isFull ? list.tail : Int32(truncatingIfNeeded: list.count)
        let (slot, isNew) = Self.claim(&index[key, default: LRUList<Entry>.none], candidate: candidate)
        let entry = Entry(key: key, value: value)
        if !isNew {
            list.replace(at: slot, with: entry)
        } else if isFull {
            index.removeValue(forKey: list[slot].key)
            list.replace(at: slot, with: entry)
            statistics.evictionCount &+= 1
        } else {
            let pushed = list.pushFront(entry)
            assert(pushed == slot, "a new slot is always appended at the end")
        }
    }

    /// Removes the entry for `key` and returns its value, or `nil` if there was none.
    ///
    /// - Complexity: O(1) on average.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        let (removed, moved) = list.remove(at: slot)
        if let moved {
            index[moved.key] = slot
        }
        return removed.value
    }

    /// Removes the entries for every key in `keys`; keys without an entry are ignored.
    ///
    /// - Complexity: O(*m*) on average, where *m* is the number of keys given.
    public mutating func removeValues<S: Sequence>(forKeys keys: S) where S.Element == Key {
        for key in keys {
            removeValue(forKey: key)
        }
    }

    /// Removes every entry and releases the storage; the statistics are kept.
    ///
    /// - Complexity: O(*n*), where *n* is ``count``.
    public mutating func removeAll() {
        index = [:]
        list.removeAll()
    }

    /// Removes every entry for which `shouldRemove` returns `true`.
    ///
    /// The predicate sees every entry first and the removals happen afterwards, so if it throws the
    /// cache is left unchanged.
    ///
    /// - Parameter shouldRemove: Called once per entry, most recently used first.
    /// - Throws: Whatever `shouldRemove` throws.
    /// - Complexity: O(*n*), where *n* is ``count``.
    public mutating func removeAll(where shouldRemove: (Key, Value) throws -> Bool) rethrows {
        var doomed: [Key] = []
        try list.forEach { entry in
            if try shouldRemove(entry.key, entry.value) {
                doomed.append(entry.key)
            }
        }
        if doomed.count == list.count {
            removeAll()
        } else {
            removeValues(forKeys: doomed)
        }
    }

    /// Calls `body` with every entry, most recently used first, without changing the order.
    ///
    /// - Throws: Whatever `body` throws; iteration stops at the first error.
    /// - Complexity: O(*n*), where *n* is ``count``.
    public func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        try list.forEach { entry in try body(entry.key, entry.value) }
    }

    /// The keys, most recently used first.
    ///
    /// - Complexity: O(*n*), where *n* is ``count``.
    public var keys: [Key] {
        var result: [Key] = []
        result.reserveCapacity(list.count)
        list.forEach { result.append($0.key) }
        return result
    }

    /// Sets every counter of ``statistics`` back to zero.
    ///
    /// - Complexity: O(1).
    public mutating func resetStatistics() {
        statistics = CacheStatistics()
    }

    /// Drops least recently used entries until the count is within the limit.
    private mutating func evictToLimit() {
        guard limit > 0 else { return }
        while list.count > limit {
            let tail = list.tail
            index.removeValue(forKey: list[tail].key)
            let (_, moved) = list.remove(at: tail)
            if let moved {
                index[moved.key] = tail
            }
            statistics.evictionCount &+= 1
        }
    }

    /// Inserts `candidate` into a dictionary slot that was empty, in the same hash lookup as the
    /// search, and tells whether it did.
    private static func claim(_ stored: inout Int32, candidate: Int32) -> (slot: Int32, isNew: Bool) {
        if stored == LRUList<Entry>.none {
            stored = candidate
            return (candidate, true)
        }
        return (stored, false)
    }
}

extension Cache.Entry: Sendable where Key: Sendable, Value: Sendable {}
extension Cache: Sendable where Key: Sendable, Value: Sendable {}
