import CofferTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Coffer

/// A commit's rows, folded on first use and published once to every thread that asks.
@Suite struct ChangedRowsTests {
    static func key(_ index: Int) -> CollectionKey { CollectionKey(collection: "c", key: "k\(index)") }

    /// Rows 0–9 folded already (metadata touched), then whole-row writes of rows 5–14, twice each.
    static func rows() -> ChangedRows {
        var folded: [CollectionKey: RowChange] = [:]
        for index in 0..<10 { folded[key(index), default: RowChange()].metadata = .evict }
        var writes = RowWrites()
        for _ in 0..<2 {
            for index in 5..<15 {
                writes.append(key(index), RowChange(evictingBothInserted: index >= 10))
            }
        }
        return ChangedRows(folded: folded, writes: writes)
    }

    @Test func foldsTheWritesIntoTheRowsAndDerivesEachKeySet() {
        let rows = Self.rows()
        #expect(!rows.isEmpty)
        let changes = rows.changes
        #expect(changes.count == 15)
        #expect(rows.objectKeys == Set((5..<15).map(Self.key)))
        #expect(rows.metadataKeys == Set((0..<15).map(Self.key)))
        #expect(rows.insertedKeys == Set((10..<15).map(Self.key)))
        #expect(rows.changes.count == 15)
        #expect(ChangedRows(folded: [:], writes: RowWrites()).isEmpty)
        #expect(ChangedRows(folded: [:], writes: RowWrites()).insertedKeys.isEmpty)
    }

    @Test func writesKeepTheirOrderFromTheFirstOnInline() {
        var writes = RowWrites()
        #expect(writes.isEmpty && writes.count == 0 && Array(writes).isEmpty)
        writes.append(Self.key(0), RowChange(evictingBothInserted: true))
        #expect(!writes.isEmpty && writes.count == 1 && writes.map(\.key) == [Self.key(0)])
        for index in [1, 0, 2] { writes.append(Self.key(index), RowChange(evictingBothInserted: false)) }
        #expect(writes.count == 4)
        #expect(writes.map(\.key) == [0, 1, 0, 2].map(Self.key))
        #expect(writes.map(\.change.inserted) == [true, false, false, false])
        // A later write of a row keeps "inserted" from the first.
        let rows = ChangedRows(folded: [:], writes: writes)
        #expect(rows.changes.count == 3 && rows.insertedKeys == [Self.key(0)])
    }

    @Test func threadsAskingFirstAtOnceAllGetTheSameRows() {
        for _ in 0..<20 {
            let rows = Self.rows()
            let wrong = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let ok: Bool
                switch index % 4 {
                case 0: ok = rows.changes.count == 15
                case 1: ok = rows.objectKeys.count == 10
                case 2: ok = rows.metadataKeys.count == 15
                default: ok = rows.insertedKeys.count == 5
                }
                if !ok { wrong.add(1, ordering: .relaxed) }
            }
            #expect(wrong.load(ordering: .relaxed) == 0)
        }
    }
}
