import Coffer
import PropertyBased
import Testing

@Suite("Cache")
struct CacheTests {
    @Test func lookupsMarkEntriesMostRecentlyUsed() {
        var cache = Cache<String, Int>(countLimit: 3)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.keys == ["c", "b", "a"])

        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.keys == ["a", "c", "b"])

        // Peeking and `contains` leave the order alone.
        #expect(cache.peekValue(forKey: "b") == 2)
        #expect(cache.contains("b"))
        #expect(cache.keys == ["a", "c", "b"])

        var visited: [String] = []
        cache.forEach { key, _ in visited.append(key) }
        #expect(visited == ["a", "c", "b"])
    }

    @Test func insertingPastTheLimitEvictsTheLeastRecentlyUsedAtOnce() {
        var cache = Cache<String, Int>(countLimit: 2)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        _ = cache.value(forKey: "a")
        cache.setValue(3, forKey: "c")

        #expect(cache.count == 2)
        #expect(!cache.contains("b"))
        #expect(cache.keys == ["c", "a"])
        #expect(cache.statistics.evictionCount == 1)
    }

    @Test func replacingAValueKeepsOneEntryAndMarksItRecent() {
        var cache = Cache<String, Int>(countLimit: 2)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(10, forKey: "a")

        #expect(cache.count == 2)
        #expect(cache.peekValue(forKey: "a") == 10)
        #expect(cache.keys == ["a", "b"])
        #expect(cache.statistics.evictionCount == 0)

        // A replacement never evicts, even when the cache is full.
        cache.setValue(20, forKey: "b")
        #expect(cache.keys == ["b", "a"])
        #expect(cache.statistics.evictionCount == 0)
    }

    @Test func loweringTheLimitEvictsImmediately() {
        var cache = Cache<Int, String>(countLimit: 10)
        for i in 0..<10 {
            cache.setValue("\(i)", forKey: i)
        }
        _ = cache.value(forKey: 0)
        cache.countLimit = 3

        #expect(cache.count == 3)
        #expect(cache.keys == [0, 9, 8])
        #expect(cache.statistics.evictionCount == 7)

        // Raising it again evicts nothing and allows growth.
        cache.countLimit = 5
        cache.setValue("10", forKey: 10)
        #expect(cache.count == 4)
    }

    @Test func aLimitOfZeroIsUnlimited() {
        var cache = Cache<Int, Int>(countLimit: 0)
        for i in 0..<1_000 {
            cache.setValue(i, forKey: i)
        }
        #expect(cache.count == 1_000)
        #expect(cache.statistics.evictionCount == 0)
        #expect(cache.keys.first == 999)
        #expect(cache.keys.last == 0)

        var limited = cache
        limited.countLimit = 10
        #expect(limited.count == 10)
        #expect(cache.count == 1_000, "Cache is a value type")

        #expect(Cache<Int, Int>(countLimit: -5).countLimit == 0)
    }

    @Test func removalsKeepTheRestInOrder() {
        var cache = Cache<Int, Int>(countLimit: 0)
        for i in 0..<6 {
            cache.setValue(i * 10, forKey: i)
        }
        #expect(cache.removeValue(forKey: 0) == 0)  // the least recent, stored in slot 0
        #expect(cache.removeValue(forKey: 0) == nil)
        #expect(cache.keys == [5, 4, 3, 2, 1])

        cache.removeValues(forKeys: [3, 42, 5])
        #expect(cache.keys == [4, 2, 1])
        #expect(cache.value(forKey: 1) == 10)
        #expect(cache.keys == [1, 4, 2])

        cache.removeAll()
        #expect(cache.isEmpty)
        #expect(cache.keys.isEmpty)
        cache.setValue(7, forKey: 7)
        #expect(cache.keys == [7])
    }

    @Test func removeAllWhereRemovesMatchesOrNothingWhenThePredicateThrows() throws {
        struct Stop: Error {}
        var cache = Cache<Int, String>(countLimit: 0)
        for i in 0..<10 {
            cache.setValue(String(i), forKey: i)
        }

        #expect(throws: Stop.self) {
            try cache.removeAll { key, _ in
                if key == 3 { throw Stop() }
                return key.isMultiple(of: 2)
            }
        }
        #expect(cache.count == 10)

        cache.removeAll { key, value in key.isMultiple(of: 2) && value == String(key) }
        #expect(cache.keys == [9, 7, 5, 3, 1])

        cache.removeAll { _, _ in true }
        #expect(cache.isEmpty)
    }

    @Test func statisticsCountHitsMissesAndEvictions() {
        var cache = Cache<String, Int>(countLimit: 1)
        #expect(cache.value(forKey: "a") == nil)
        cache.setValue(1, forKey: "a")
        #expect(cache.value(forKey: "a") == 1)
        _ = cache.peekValue(forKey: "zz")
        cache.setValue(2, forKey: "b")

        #expect(cache.statistics == CacheStatistics(hitCount: 1, missCount: 1, evictionCount: 1))
        #expect(cache.statistics.hitRatio == 0.5)
        cache.resetStatistics()
        #expect(cache.statistics == CacheStatistics())
        #expect(CacheStatistics().hitRatio == 0)
    }

    @Test func releasesRemovedValues() {
        final class Token {}
        weak var evicted: Token?
        weak var removed: Token?
        var cache = Cache<Int, Token>(countLimit: 2)
        do {
            let first = Token()
            let second = Token()
            evicted = first
            removed = second
            cache.setValue(first, forKey: 1)
            cache.setValue(second, forKey: 2)
        }
        cache.setValue(Token(), forKey: 3)
        #expect(evicted == nil)
        cache.removeValue(forKey: 2)
        #expect(removed == nil)
    }

    /// Random operation sequences give the same answers and the same order as a plain array model.
    @Test func behavesLikeAReferenceModel() async {
        let operation = zip(Gen.int(in: 0...7), Gen.int(in: 0...11), Gen.int(in: 0...99))
        await propertyCheck(count: 200, input: Gen.int(in: 0...6), operation.array(of: 0...120)) { limit, ops in
            var cache = Cache<Int, Int>(countLimit: limit)
            var model = CacheModel(limit: limit)
            for (code, key, value) in ops {
                switch code {
                case 0, 1, 2:
                    cache.setValue(value, forKey: key)
                    model.set(value, for: key)
                case 3, 4:
                    #expect(cache.value(forKey: key) == model.get(key))
                case 5:
                    #expect(cache.removeValue(forKey: key) == model.remove(key))
                case 6:
                    #expect(cache.peekValue(forKey: key) == model.peek(key))
                    #expect(cache.contains(key) == (model.peek(key) != nil))
                default:
                    let newLimit = value % 7
                    cache.countLimit = newLimit
                    model.setLimit(newLimit)
                }
                #expect(cache.count == model.entries.count)
                #expect(cache.keys == model.entries.map(\.key))
            }
            var pairs: [CacheModel.Entry] = []
            cache.forEach { pairs.append(CacheModel.Entry(key: $0, value: $1)) }
            #expect(pairs == model.entries)
            #expect(cache.statistics.evictionCount == model.evictions)
        }
    }
}

/// The obvious O(n) LRU: an array ordered most recently used first.
private struct CacheModel {
    struct Entry: Equatable {
        var key: Int
        var value: Int
    }

    var limit: Int
    var entries: [Entry] = []
    var evictions = 0

    mutating func set(_ value: Int, for key: Int) {
        entries.removeAll { $0.key == key }
        entries.insert(Entry(key: key, value: value), at: 0)
        trim()
    }

    mutating func get(_ key: Int) -> Int? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = entries.remove(at: i)
        entries.insert(entry, at: 0)
        return entry.value
    }

    func peek(_ key: Int) -> Int? {
        entries.first { $0.key == key }?.value
    }

    mutating func remove(_ key: Int) -> Int? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: i).value
    }

    mutating func setLimit(_ newLimit: Int) {
        limit = newLimit
        trim()
    }

    private mutating func trim() {
        while limit > 0 && entries.count > limit {
            entries.removeLast()
            evictions += 1
        }
    }
}
