import Coffer
import Foundation

/// Everything the workloads write and read, built before any timer starts, plus the figures they must yield.
///
/// The database state every implementation reaches is the same: the W1 records (rev 0) with the W2
/// records (rev 1) written over them. `expected` holds the checks of that state.
struct Records: Sendable {
    /// The collection every record lives in.
    static let collection = "users"
    /// The collection as the Codable suite's typed handle.
    static let users = CollectionHandle<User>(collection)
    /// The collection as the raw suite's typed handle.
    static let values = CollectionHandle<Data>(collection)
    /// The most W2 transactions BENCHMARKS.md runs (record `i = j * 50` for `j` in `0 ..< 2000`).
    static let maximumUpdateCount = 2000

    /// N, the number of W1 records.
    let count: Int
    /// The W1 records, rev 0, in index (and key) order.
    let users: [User]
    /// The keys of the W1 records, in index order.
    let keys: PackedStrings
    /// The W1 records encoded with `JSONEncoder` and `.sortedKeys`.
    let values: PackedStrings
    /// The record indexes W2 rewrites, one per transaction.
    let updateIndexes: [Int]
    /// The W2 records, rev 1, one per transaction.
    let updates: [User]
    /// The keys of the W2 records.
    let updateKeys: PackedStrings
    /// The W2 records encoded.
    let updateValues: PackedStrings
    /// The record indexes of the W3 reads (N of them), drawn with SplitMix64 seed 42.
    let readIndexes: [Int]
    /// The keys of the W3 reads.
    let readKeys: PackedStrings
    /// The checks every implementation must report for this state.
    let expected: SanityFigures

    /// The `age` record `user-000000` has in the final state (W5 reads it).
    var firstRecordAge: Int { User.age(index: 0, rev: updateIndexes.first == 0 ? 1 : 0) }

    /// The keys of the W3 reads as strings.
    var readKeyStrings: [String] { readIndexes.map { User.key(index: $0) } }

    /// Builds and encodes the records for `count` records.
    /// - Throws: `BenchError` with code `.sanity` when `JSONEncoder` fails.
    /// - Complexity: O(`count`); encodes every record once (about a second for 100,000).
    static func make(count: Int) throws -> Records {
        let encoder = Records.canonicalEncoder()
        let users = (0..<count).map { User(index: $0, rev: 0) }
        var keys = PackedStrings()
        var values = PackedStrings()
        for user in users {
            keys.append(user.id)
            values.append(try encode(user, with: encoder))
        }
        let updateCount = min(maximumUpdateCount, (count + 49) / 50)
        let updateIndexes = (0..<updateCount).map { $0 * 50 }
        let updates = updateIndexes.map { User(index: $0, rev: 1) }
        var updateKeys = PackedStrings()
        var updateValues = PackedStrings()
        for user in updates {
            updateKeys.append(user.id)
            updateValues.append(try encode(user, with: encoder))
        }
        let readIndexes = SplitMix64.readIndexes(count: count, recordCount: count)
        var readKeys = PackedStrings()
        for index in readIndexes { readKeys.append(User.key(index: index)) }
        let expected = expectedFigures(
            values: values, updateIndexes: updateIndexes, updateValues: updateValues, readIndexes: readIndexes)
        return Records(
            count: count, users: users, keys: keys, values: values, updateIndexes: updateIndexes, updates: updates,
            updateKeys: updateKeys, updateValues: updateValues, readIndexes: readIndexes, readKeys: readKeys,
            expected: expected)
    }

    /// The encoder every implementation must use: Foundation `JSONEncoder` with `.sortedKeys` and nothing else.
    static func canonicalEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    private static func encode(_ user: User, with encoder: JSONEncoder) throws -> Data {
        do {
            return try encoder.encode(user)
        } catch {
            throw BenchError(.sanity, "JSONEncoder failed on record \(user.id): \(error)")
        }
    }

    /// The checks of the final state, computed from the records in memory.
    ///
    /// Keys are six-digit zero-padded, so for N ≤ 1,000,000 index order is key order.
    private static func expectedFigures(
        values: PackedStrings, updateIndexes: [Int], updateValues: PackedStrings, readIndexes: [Int]
    ) -> SanityFigures {
        let count = values.count
        var rev = [Int](repeating: 0, count: count)
        var updatePosition = [Int: Int]()
        for (position, index) in updateIndexes.enumerated() {
            rev[index] = 1
            updatePosition[index] = position
        }
        var hash = FNV1a64()
        var ageSum = 0
        for index in 0..<count {
            ageSum += User.age(index: index, rev: rev[index])
            if let position = updatePosition[index] {
                hash.combine(updateValues.item(at: position))
            } else {
                hash.combine(values.item(at: index))
            }
        }
        let readSum = readIndexes.reduce(0) { $0 + User.age(index: $1, rev: rev[$1]) }
        return SanityFigures(
            w3Checksum: readSum, w4Count: count, w4Checksum: ageSum, contentFNV1a64: hash.hex, contentCount: count)
    }
}
