import Testing

@testable import Coffer

/// The keyed polynomial hash that places `CollectionKey`s in dictionaries and sets.
struct TableHashTests {
    /// A straightforward evaluation of the same polynomial, one byte at a time, to check the
    /// word loads and the modular arithmetic against.
    private static func reference(_ bytes: [UInt8], at point: UInt64) -> UInt64 {
        let prime = TableHash.prime
        func mulmod(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (high, low) = a.multipliedFullWidth(by: b)
            return prime.dividingFullWidth((high, low)).remainder
        }
        var hash = UInt64(bytes.count) % prime
        var index = 0
        while index < bytes.count {
            var word: UInt64 = 0
            for (shift, byte) in bytes[index..<min(index + 7, bytes.count)].enumerated() {
                word |= UInt64(byte) << UInt64(8 * shift)
            }
            hash = (mulmod(hash, point) + word) % prime
            index += 7
        }
        return TableHash.mix(mulmod(hash, point))
    }

    @Test func matchesTheReferenceForEveryLengthAroundTheWordSize() {
        var generator = SystemRandomNumberGenerator()
        for count in 0...40 {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for point in [1, 2, TableHash.prime - 1, UInt64.random(in: 1..<TableHash.prime, using: &generator)] {
                let hashed = bytes.withUnsafeBytes { TableHash.hash($0, at: point) }
                #expect(hashed == Self.reference(bytes, at: point), "count \(count), point \(point)")
            }
        }
    }

    /// Numbered keys fill a table's buckets as a random function would (about 14,975 of 32,768
    /// with 20,000 keys; its spread is a few dozen), at a random point and at points where the
    /// bare polynomial clusters them: a hash that added the last word unmultiplied put them into a
    /// few hundred buckets, and the polynomial without the final mix into 9,291 at the first
    /// point below.
    @Test(arguments: [145_514_431_571_737_541, 1, 2, UInt64.random(in: 1..<TableHash.prime)])
    func numberedKeysSpreadOverTheBuckets(point: UInt64) {
        var buckets = Set<UInt64>()
        for index in 0..<20_000 {
            let key = Array("user-\(100_000 + index * 4)".utf8)
            buckets.insert(key.withUnsafeBytes { TableHash.hash($0, at: point) } & 32_767)
        }
        #expect(buckets.count > 14_500, "point \(point)")
    }

    @Test func lengthIsPartOfTheHash() {
        // Trailing zero bytes fill the last word the same way; the count tells them apart.
        let point = UInt64(123_456_789)
        let short = [UInt8]([1, 2, 3]).withUnsafeBytes { TableHash.hash($0, at: point) }
        let padded = [UInt8]([1, 2, 3, 0]).withUnsafeBytes { TableHash.hash($0, at: point) }
        #expect(short != padded)
    }

    @Test func equalPairsHashEquallyInEveryTable() {
        let a = CollectionKey(collection: "c", key: "a key longer than one small string")
        let b = CollectionKey(collection: "c", key: "a key longer than one small " + "string")
        for seed in [0, 1, -1, Int.max, Int.min, 977] {
            #expect(a._rawHashValue(seed: seed) == b._rawHashValue(seed: seed))
        }
        #expect(a.hashValue == b.hashValue)
        var set: Set<CollectionKey> = []
        for index in 0..<10_000 { set.insert(CollectionKey(collection: "c", key: "key-\(index)")) }
        #expect(set.count == 10_000)
        #expect(set.contains(CollectionKey(collection: "c", key: "key-9999")))
        #expect(!set.contains(CollectionKey(collection: "d", key: "key-9999")))
    }
}
