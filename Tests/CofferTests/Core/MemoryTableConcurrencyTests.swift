import CofferTestSupport
import Dispatch
import Foundation
import Testing

@testable import Coffer

/// Readers on several threads against a writer committing as fast as it can: a pinned view
/// reads one whole version (every key carries the number of the version that wrote it), the
/// same one every time it looks, and a long-lived view keeps the first version to the end.
@Suite struct MemoryTableConcurrencyTests {
    typealias Table = MemoryTable<Int, UInt64>

    private static let keyCount = 8
    private static let lastVersion: UInt64 = 1_000

    /// Runs `body` on a new thread inside `group`.
    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    @Test func pinnedReadersSeeOneWholeVersionWhileAWriterCommits() throws {
        let table = Table()
        // The database's published snapshot. Readers register their view under this lock and the
        // writer publishes and releases its base under it, as Coffer's snapshot gate orders a
        // reader's pin and a commit, so no reader asks for a snapshot the table already freed.
        let published = Locked<UInt64>(0)
        let failures = Locked<[String]>([])
        let finished = Locked(false)
        let reads = Locked(0)

        let first = try table.beginWrite(at: 0)
        for key in 0..<Self.keyCount { try first.setValue(1, forKey: key) }
        try first.commit(as: 1)
        published.withLock { snapshot in
            snapshot = 1
            first.end()
        }
        let longLived = try table.beginRead(at: 1)

        let group = DispatchGroup()
        spawn(group) {
            do {
                for version in 2...Self.lastVersion {
                    let writer = try table.beginWrite(at: version - 1)
                    if version % 10 == 0 { try writer.removeAll() }
                    for key in 0..<Self.keyCount { try writer.setValue(version, forKey: key) }
                    try writer.commit(as: version)
                    published.withLock { snapshot in
                        snapshot = version
                        writer.end()
                    }
                }
            } catch {
                failures.append("writer: \(error)")
            }
            finished.withLock { $0 = true }
        }
        for reader in 0..<3 {
            spawn(group) {
                do {
                    // Bounded in case the writer stops early.
                    for _ in 0..<1_000_000 where !finished.value {
                        let view = try published.withLock { snapshot throws(MemoryTableError) in
                            try table.beginRead(at: snapshot)
                        }
                        // Commits go on meanwhile; the view reads the same version every time.
                        for _ in 0..<3 {
                            var values: [UInt64] = []
                            for key in 0..<Self.keyCount {
                                if let value = try view.value(forKey: key) { values.append(value) }
                            }
                            if values != Array(repeating: view.snapshot, count: Self.keyCount) {
                                failures.append("reader \(reader) at \(view.snapshot) read \(values)")
                            }
                        }
                        var enumerated: [UInt64] = []
                        try view.enumerate { _, value, _ in enumerated.append(value) }
                        if enumerated != Array(repeating: view.snapshot, count: Self.keyCount) {
                            failures.append("reader \(reader) at \(view.snapshot) enumerated \(enumerated)")
                        }
                        if try view.count != Self.keyCount {
                            failures.append("reader \(reader) at \(view.snapshot) counted \(try view.count)")
                        }
                        view.end()
                        reads.withLock { $0 += 1 }
                    }
                } catch {
                    failures.append("reader \(reader): \(error)")
                }
            }
        }
        #expect(TestSupport.wait(group, timeout: .seconds(60)))
        #expect(failures.value.isEmpty, "\(failures.value.prefix(5))")
        #expect(reads.value > 0)
        #expect(table.newestVersion == Self.lastVersion)

        // The long-lived view held every version since the first.
        #expect(table.retainedVersionCount == Self.keyCount * Int(Self.lastVersion))
        for key in 0..<Self.keyCount { #expect(try longLived.value(forKey: key) == 1) }
        longLived.end()
        #expect(table.retainedVersionCount == Self.keyCount)
    }
}
