import Coffer
import PropertyBased
import Testing

@Suite("BidirectionalCache")
struct BidirectionalCacheTests {
    @Test func looksUpFromEitherSide() {
        var cache = BidirectionalCache<String, Int>(countLimit: 10)
        cache.setValue(1, forKey: "one")
        cache.setValue(2, forKey: "two")

        #expect(cache.value(forKey: "one") == 1)
        #expect(cache.key(forValue: 2) == "two")
        #expect(cache.value(forKey: "three") == nil)
        #expect(cache.key(forValue: 3) == nil)
        #expect(cache.containsKey("one") && cache.containsValue(1))
        #expect(cache.statistics == CacheStatistics(hitCount: 2, missCount: 2, evictionCount: 0))
    }

    @Test func settingReplacesPairsSharingTheKeyOrTheValue() {
        var cache = BidirectionalCache<String, Int>(countLimit: 0)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")

        // Same key, new value: the old value is forgotten.
        cache.setValue(3, forKey: "a")
        #expect(cache.key(forValue: 1) == nil)
        #expect(cache.key(forValue: 3) == "a")
        #expect(cache.count == 2)

        // New key, existing value: the value's old key is forgotten.
        cache.setValue(2, forKey: "c")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "c") == 2)
        #expect(cache.count == 2)

        // Existing key and existing value of two different pairs: both old pairs collapse into one.
        cache.setValue(2, forKey: "a")
        #expect(cache.count == 1)
        #expect(cache.value(forKey: "a") == 2)
        #expect(cache.value(forKey: "c") == nil)
        #expect(cache.key(forValue: 3) == nil)
    }

    @Test func evictsTheLeastRecentlyUsedPair() {
        var cache = BidirectionalCache<String, Int>(countLimit: 2)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        _ = cache.key(forValue: 1)  // "a" becomes the most recent
        cache.setValue(3, forKey: "c")

        #expect(cache.count == 2)
        #expect(!cache.containsKey("b"))
        #expect(!cache.containsValue(2))
        #expect(cache.statistics.evictionCount == 1)

        cache.countLimit = 1
        #expect(cache.count == 1)
        #expect(cache.containsKey("c"))
        #expect(!cache.containsValue(1))
    }

    @Test func removesFromEitherSide() {
        var cache = BidirectionalCache<String, Int>(countLimit: 0)
        for (i, name) in ["a", "b", "c", "d"].enumerated() {
            cache.setValue(i, forKey: name)
        }
        #expect(cache.removeValue(forKey: "a") == 0)
        #expect(cache.removeKey(forValue: 2) == "c")
        #expect(cache.removeKey(forValue: 2) == nil)
        #expect(cache.count == 2)
        #expect(cache.value(forKey: "d") == 3)
        #expect(cache.key(forValue: 1) == "b")

        var pairs: [String] = []
        cache.forEach { key, value in pairs.append("\(key)=\(value)") }
        #expect(pairs == ["b=1", "d=3"])

        cache.removeAll()
        #expect(cache.isEmpty)
        #expect(!cache.containsKey("b") && !cache.containsValue(3))
    }

    /// Random operation sequences agree with a plain array model of one-to-one pairs.
    @Test func behavesLikeAReferenceModel() async {
        let operation = zip(Gen.int(in: 0...8), Gen.int(in: 0...9), Gen.int(in: 0...9))
        await propertyCheck(count: 200, input: Gen.int(in: 0...5), operation.array(of: 0...120)) { limit, ops in
            var cache = BidirectionalCache<Int, Int>(countLimit: limit)
            var model = PairModel(limit: limit)
            for (code, key, value) in ops {
                switch code {
                case 0, 1, 2:
                    cache.setValue(value, forKey: key)
                    model.set(value, for: key)
                case 3:
                    #expect(cache.value(forKey: key) == model.touch { $0.key == key }?.value)
                case 4:
                    #expect(cache.key(forValue: value) == model.touch { $0.value == value }?.key)
                case 5:
                    #expect(cache.removeValue(forKey: key) == model.remove { $0.key == key }?.value)
                case 6:
                    #expect(cache.removeKey(forValue: value) == model.remove { $0.value == value }?.key)
                case 7:
                    #expect(cache.containsKey(key) == model.pairs.contains { $0.key == key })
                    #expect(cache.containsValue(value) == model.pairs.contains { $0.value == value })
                default:
                    let newLimit = (key + value) % 6
                    cache.countLimit = newLimit
                    model.setLimit(newLimit)
                }
                var pairs: [PairModel.Pair] = []
                cache.forEach { pairs.append(PairModel.Pair(key: $0, value: $1)) }
                #expect(pairs == model.pairs)
            }
            #expect(cache.statistics.evictionCount == model.evictions)
        }
    }
}

/// The obvious O(n) one-to-one LRU: an array of pairs ordered most recently used first.
private struct PairModel {
    struct Pair: Equatable {
        var key: Int
        var value: Int
    }

    var limit: Int
    var pairs: [Pair] = []
    var evictions = 0

    mutating func set(_ value: Int, for key: Int) {
        pairs.removeAll { $0.key == key || $0.value == value }
        pairs.insert(Pair(key: key, value: value), at: 0)
        trim()
    }

    mutating func touch(where matches: (Pair) -> Bool) -> Pair? {
        guard let i = pairs.firstIndex(where: matches) else { return nil }
        let pair = pairs.remove(at: i)
        pairs.insert(pair, at: 0)
        return pair
    }

    mutating func remove(where matches: (Pair) -> Bool) -> Pair? {
        guard let i = pairs.firstIndex(where: matches) else { return nil }
        return pairs.remove(at: i)
    }

    mutating func setLimit(_ newLimit: Int) {
        limit = newLimit
        trim()
    }

    private mutating func trim() {
        while limit > 0 && pairs.count > limit {
            pairs.removeLast()
            evictions += 1
        }
    }
}
