import CofferTestSupport
import Testing

@testable import Coffer

/// Random reads, writes, commits, rollbacks and retention floors checked against a model that
/// keeps the whole rows of every committed version: after every step each open view reads
/// exactly its version's rows, and the table stores exactly the versions the oldest readable
/// snapshot and the commits after it need.
@Suite struct MemoryTableModelTests {
    typealias Table = MemoryTable<String, Int>

    private static let keys = (0..<6).map { "k\($0)" }

    /// One committed version.
    private struct Version {
        let number: UInt64
        let rows: [String: Int]
        /// The keys the commit gave a version: set, or removed while they had a value.
        let written: Set<String>
    }

    /// The open write view and what it must read.
    private struct Writer {
        let view: Table.WriteView
        let base: UInt64
        var rows: [String: Int]
        var changes: [String: Int?] = [:]
        var clearsAll = false
        var committed: UInt64?
        /// Whether the commit changed something, and so published a version.
        var published = false
    }

    private struct Model {
        var versions = [Version(number: 0, rows: [:], written: [])]
        /// The snapshot the database last published: new readers begin there.
        var databaseSnapshot: UInt64 = 0
        var readers: [(view: Table.ReadView, snapshot: UInt64)] = []
        var writer: Writer?
        var retentionFloor: UInt64?
        /// The oldest readable snapshot: it only rises.
        var floor: UInt64 = 0

        var newest: Version { versions[versions.count - 1] }

        func rows(at snapshot: UInt64) -> [String: Int] {
            versions.last { $0.number <= snapshot }?.rows ?? [:]
        }

        mutating func updateFloor() {
            var floor = newest.number
            for reader in readers { floor = min(floor, reader.snapshot) }
            if let writer { floor = min(floor, writer.base) }
            if let retentionFloor { floor = min(floor, retentionFloor) }
            self.floor = max(self.floor, floor)
        }

        /// One version per key visible at the floor, plus one per key each later commit wrote.
        var neededVersionCount: Int {
            versions.filter { $0.number > floor }.reduce(rows(at: floor).count) { $0 + $1.written.count }
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func randomOperationsMatchTheModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let table = Table()
        var model = Model()
        for step in 0..<1_500 {
            try perform(Int.random(in: 0..<16, using: &rng), table, &model, &rng)
            model.updateFloor()
            try check(table, model, "seed \(seed) step \(step)")
        }
        // The floor rises at each step of the teardown, as the table prunes at each.
        while let reader = model.readers.popLast() {
            reader.view.end()
            model.updateFloor()
        }
        if let writer = model.writer {
            writer.view.rollback()
            if writer.published { model.versions.removeLast() }
            model.writer = nil
            model.updateFloor()
        }
        table.retentionFloor = nil
        model.retentionFloor = nil
        model.updateFloor()
        try check(table, model, "seed \(seed) at the end")
        #expect(table.retainedVersionCount == model.newest.rows.count)
    }

    private func perform(
        _ action: Int, _ table: Table, _ model: inout Model, _ rng: inout SeededGenerator
    ) throws {
        switch action {
        case 0, 1:
            // A reader at the published snapshot, as every Coffer read transaction begins.
            guard model.readers.count < 8 else { return }
            let snapshot = model.databaseSnapshot
            model.readers.append((try table.beginRead(at: snapshot), snapshot))
        case 2:
            // A reader at any snapshot still readable; below it the table refuses.
            guard model.readers.count < 8 else { return }
            let snapshot = UInt64.random(in: model.floor...model.databaseSnapshot, using: &rng)
            model.readers.append((try table.beginRead(at: snapshot), snapshot))
            if model.floor > 0 {
                let released = MemoryTableError.snapshotReleased(snapshot: model.floor - 1, oldestReadable: model.floor)
                #expect(throws: released) { try table.beginRead(at: model.floor - 1) }
            }
        case 3, 4:
            guard !model.readers.isEmpty else { return }
            let reader = model.readers.remove(at: Int.random(in: 0..<model.readers.count, using: &rng))
            reader.view.end()
        case 5, 6, 7, 8:
            guard var writer = model.writer else {
                let base = model.databaseSnapshot
                model.writer = Writer(view: try table.beginWrite(at: base), base: base, rows: model.newest.rows)
                return
            }
            guard writer.committed == nil else { return }
            for _ in 0..<Int.random(in: 1...5, using: &rng) { try write(&writer, &rng) }
            model.writer = writer
        case 9, 10:
            guard var writer = model.writer, writer.committed == nil else { return }
            let version = model.databaseSnapshot + 1
            try writer.view.commit(as: version)
            writer.committed = version
            let written = written(by: writer, model)
            writer.published = !written.isEmpty
            if writer.published {
                model.versions.append(Version(number: version, rows: writer.rows, written: written))
            }
            model.writer = writer
        case 11, 12:
            // The database commit succeeded.
            guard let writer = model.writer, let version = writer.committed else { return }
            writer.view.end()
            // A commit that changed nothing in the table may still have changed rows.
            if writer.published || Bool.random(using: &rng) { model.databaseSnapshot = version }
            model.writer = nil
        case 13:
            // The transaction rolled back, or its database commit failed and the table takes the
            // version back.
            guard let writer = model.writer else { return }
            writer.view.rollback()
            if writer.published { model.versions.removeLast() }
            model.writer = nil
        case 14:
            // A database commit that does not touch the table.
            guard model.writer == nil else { return }
            model.databaseSnapshot += 1
        default:
            let floor: UInt64? =
                Bool.random(using: &rng) ? nil : .random(in: model.floor...model.databaseSnapshot, using: &rng)
            table.retentionFloor = floor
            model.retentionFloor = floor
        }
    }

    /// One random change through the write view, applied to the model too.
    private func write(_ writer: inout Writer, _ rng: inout SeededGenerator) throws {
        let key = Self.keys[Int.random(in: 0..<Self.keys.count, using: &rng)]
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<6:
            let value = Int.random(in: 0..<50, using: &rng)
            try writer.view.setValue(value, forKey: key)
            writer.rows[key] = value
            writer.changes[key] = .some(value)
        case 6..<9:
            try writer.view.removeValue(forKey: key)
            writer.rows[key] = nil
            writer.changes[key] = .some(nil)
        default:
            try writer.view.removeAll()
            writer.rows = [:]
            writer.changes = [:]
            writer.clearsAll = true
        }
    }

    /// The keys a commit of `writer` gives a version.
    private func written(by writer: Writer, _ model: Model) -> Set<String> {
        let base = model.newest.rows
        var written = Set<String>()
        if writer.clearsAll {
            for key in base.keys where writer.changes[key] == nil { written.insert(key) }
        }
        for (key, value) in writer.changes where value != nil || base[key] != nil { written.insert(key) }
        return written
    }

    private func check(_ table: Table, _ model: Model, _ context: String) throws {
        #expect(table.newestVersion == model.newest.number, "\(context)")
        #expect(table.oldestReadableSnapshot == model.floor, "\(context)")
        #expect(table.retainedVersionCount == model.neededVersionCount, "\(context)")
        for reader in model.readers {
            let expected = model.rows(at: reader.snapshot)
            var rows: [String: Int] = [:]
            try reader.view.enumerate { key, value, _ in rows[key] = value }
            #expect(rows == expected, "\(context): reader at \(reader.snapshot)")
            #expect(try reader.view.count == expected.count, "\(context): reader at \(reader.snapshot)")
            for key in Self.keys {
                #expect(try reader.view.value(forKey: key) == expected[key], "\(context): \(key) at \(reader.snapshot)")
            }
        }
        if let writer = model.writer {
            var rows: [String: Int] = [:]
            try writer.view.enumerate { key, value, _ in rows[key] = value }
            #expect(rows == writer.rows, "\(context): writer")
            #expect(try writer.view.count == writer.rows.count, "\(context): writer")
            #expect(try Set(writer.view.keys) == Set(writer.rows.keys), "\(context): writer")
            for key in Self.keys {
                #expect(try writer.view.value(forKey: key) == writer.rows[key], "\(context): writer \(key)")
            }
        }
    }
}
