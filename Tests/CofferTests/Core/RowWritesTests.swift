import Testing

@testable import Coffer

/// A transaction's write list keeps every write, in order, across its inline first write and its
/// chunks.
@Suite struct RowWritesTests {
    @Test(arguments: [
        0, 1, 2, RowWrites.chunkCapacity, RowWrites.chunkCapacity + 1, RowWrites.chunkCapacity + 2,
        3 * RowWrites.chunkCapacity + 1, 3 * RowWrites.chunkCapacity + 7,
    ])
    func everyWriteIsKeptInOrder(count: Int) {
        var writes = RowWrites()
        for index in 0..<count {
            writes.append(
                CollectionKey(collection: "c\(index % 3)", key: "k\(index)"),
                RowChange(evictingBothInserted: index % 2 == 0))
        }
        #expect(writes.count == count)
        #expect(writes.isEmpty == (count == 0))
        #expect(writes.map(\.key.key) == (0..<count).map { "k\($0)" })
        #expect(writes.map(\.key.collection) == (0..<count).map { "c\($0 % 3)" })
        #expect(writes.map(\.change.inserted) == (0..<count).map { $0 % 2 == 0 })
        // Iterating twice gives the same writes: an iterator does not consume the list.
        #expect(Array(writes).count == count)
    }
}
