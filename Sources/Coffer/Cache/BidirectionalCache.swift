/// A strict least-recently-used cache of one-to-one pairs that can be searched from either side,
/// the equivalent of YapDatabase's `YapBidirectionalCache`.
///
/// Each key has at most one value and each value at most one key. Storing a pair replaces any
/// pair that shared its key *or* its value, so the mapping stays one-to-one. Lookups from either
/// side mark the pair most recently used; past ``countLimit`` the least recently used pair is
/// evicted during the insertion itself. With a limit of `0` the type is an unbounded two-way
/// dictionary.
///
/// Like ``Cache`` it is a value type, **not** thread-safe (one owner, one serial queue), and
/// stores its pairs in one contiguous buffer linked by slot numbers, with one hash index per side.
///
/// ```swift
/// var rowids = BidirectionalCache<CollectionKey, Int64>(countLimit: 100)
/// rowids.setValue(42, forKey: CollectionKey(collection: "notes", key: "n1"))
/// rowids.key(forValue: 42)          // notes/n1
/// ```
public struct BidirectionalCache<Key: Hashable, Value: Hashable> {
    /// One cached pair, stored in the recency list.
    struct Pair {
        var key: Key
        var value: Value
    }

    private var keyIndex: [Key: Int32] = [:]
    private var valueIndex: [Value: Int32] = [:]
    /// The pairs, most recently used first.
    private var list = LRUList<Pair>()
    private var limit: Int

    /// Hit, miss and eviction counts for lookups from both sides.
    public private(set) var statistics = CacheStatistics()

    /// Creates an empty cache holding at most `countLimit` pairs.
    ///
    /// - Parameter countLimit: The maximum number of pairs; `0` means unlimited. Negative values
    ///   are treated as `0`.
    /// - Complexity: O(1).
    public init(countLimit: Int = 40) {
        limit = max(0, countLimit)
    }

    /// The maximum number of pairs; `0` means unlimited.
    ///
    /// Lowering the limit below ``count`` evicts least recently used pairs at once.
    ///
    /// - Complexity: O(*k*) to set, where *k* is the number of pairs evicted; O(1) to get.
    public var countLimit: Int {
        get { limit }
        set {
            limit = max(0, newValue)
            guard limit > 0 else { return }
            while list.count > limit {
                remove(slot: list.tail)
                statistics.evictionCount &+= 1
            }
        }
    }

    /// The number of pairs in the cache.
    ///
    /// - Complexity: O(1).
    public var count: Int { list.count }

    /// Whether the cache holds no pair.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool { list.count == 0 }

    /// Returns the value paired with `key` and marks the pair most recently used.
    ///
    /// - Complexity: O(1) on average.
    public mutating func value(forKey key: Key) -> Value? {
        guard let slot = keyIndex[key] else {
            statistics.missCount &+= 1
            return nil
        }
        statistics.hitCount &+= 1
        list.moveToFront(slot)
        return list[slot].value
    }

    /// Returns the key paired with `value` and marks the pair most recently used.
    ///
    /// - Complexity: O(1) on average.
    public mutating func key(forValue value: Value) -> Key? {
        guard let slot = valueIndex[value] else {
            statistics.missCount &+= 1
            return nil
        }
        statistics.hitCount &+= 1
        list.moveToFront(slot)
        return list[slot].key
    }

    /// Whether a pair exists for `key`; does not change the recency order or the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func containsKey(_ key: Key) -> Bool {
        keyIndex[key] != nil
    }

    /// Whether a pair exists for `value`; does not change the recency order or the statistics.
    ///
    /// - Complexity: O(1) on average.
    public func containsValue(_ value: Value) -> Bool {
        valueIndex[value] != nil
    }

    /// Pairs `value` with `key` and marks the pair most recently used.
    ///
    /// Any pair that had this key or this value is replaced, so afterwards `key` maps only to
    /// `value` and `value` only to `key`. A new pair in a full cache evicts the least recently used one.
    ///
    /// - Complexity: O(1) on average (amortized while the buffer grows).
    public mutating func setValue(_ value: Value, forKey key: Key) {
        let pair = Pair(key: key, value: value)
        let valueSlot = valueIndex[value]
        if var keySlot = keyIndex[key] {
            if valueSlot == keySlot {
                list.replace(at: keySlot, with: pair)
                return
            }
            if let valueSlot {
                // The value belonged to another key: that pair goes. Removal may move our pair.
                remove(slot: valueSlot)
                keySlot = keyIndex[key] ?? keySlot
            }
            valueIndex.removeValue(forKey: list[keySlot].value)
            valueIndex[value] = keySlot
            list.replace(at: keySlot, with: pair)
        } else if let valueSlot {
            // The value belonged to another key: re-key that pair in place.
            keyIndex.removeValue(forKey: list[valueSlot].key)
            keyIndex[key] = valueSlot
            list.replace(at: valueSlot, with: pair)
        } else if limit > 0 && list.count >= limit {
            let slot = list.tail
            let evicted = list[slot]
            keyIndex.removeValue(forKey: evicted.key)
            valueIndex.removeValue(forKey: evicted.value)
            keyIndex[key] = slot
            valueIndex[value] = slot
            list.replace(at: slot, with: pair)
            statistics.evictionCount &+= 1
        } else {
            let slot = list.pushFront(pair)
            keyIndex[key] = slot
            valueIndex[value] = slot
        }
    }

    /// Removes the pair for `key` and returns its value, or `nil` if there was none.
    ///
    /// - Complexity: O(1) on average.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = keyIndex[key] else { return nil }
        return remove(slot: slot).value
    }

    /// Removes the pair for `value` and returns its key, or `nil` if there was none.
    ///
    /// - Complexity: O(1) on average.
    @discardableResult
    public mutating func removeKey(forValue value: Value) -> Key? {
        guard let slot = valueIndex[value] else { return nil }
        return remove(slot: slot).key
    }

    /// Removes every pair and releases the storage; the statistics are kept.
    ///
    /// - Complexity: O(*n*), where *n* is ``count``.
    public mutating func removeAll() {
        keyIndex = [:]
        valueIndex = [:]
        list.removeAll()
    }

    /// Calls `body` with every pair, most recently used first, without changing the order.
    ///
    /// - Throws: Whatever `body` throws; iteration stops at the first error.
    /// - Complexity: O(*n*), where *n* is ``count``.
    public func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        try list.forEach { pair in try body(pair.key, pair.value) }
    }

    /// Sets every counter of ``statistics`` back to zero.
    ///
    /// - Complexity: O(1).
    public mutating func resetStatistics() {
        statistics = CacheStatistics()
    }

    /// Removes the pair in `slot` from the list and both indexes, re-indexing the pair moved into it.
    @discardableResult
    private mutating func remove(slot: Int32) -> Pair {
        let (removed, moved) = list.remove(at: slot)
        keyIndex.removeValue(forKey: removed.key)
        valueIndex.removeValue(forKey: removed.value)
        if let moved {
            keyIndex[moved.key] = slot
            valueIndex[moved.value] = slot
        }
        return removed
    }
}

extension BidirectionalCache.Pair: Sendable where Key: Sendable, Value: Sendable {}
extension BidirectionalCache: Sendable where Key: Sendable, Value: Sendable {}
