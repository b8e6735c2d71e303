import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A connection that falls further behind than the database keeps changesets gets one explicit
/// reset: a changeset flagged `isReset`, a reset of every extension state, and change questions
/// that answer yes.
@Suite struct ResetChangesetTests {
    /// Counts what reaches its state on each connection.
    final class Probe: @unchecked Sendable {
        // Safety: written on the connections' queues one transaction at a time, read after they finish.
        var resets = 0
        var flushes = 0
        var committed = 0
    }

    struct ProbeExtension: DatabaseExtension {

        let kind = "ProbeExtension"
        let probe: Probe
        var isPersistent: Bool { false }

        func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
            State(probe: probe)
        }

        final class State: ExtensionConnectionState {
            let probe: Probe
            init(probe: Probe) { self.probe = probe }
            func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction { Transaction() }
            func noteCommitted(_ changes: Int) { probe.committed += changes }
            func flushMemory() { probe.flushes += 1 }
            func reset() { probe.resets += 1 }
        }

        final class Transaction: ExtensionTransaction {
            private var wrote = false
            func didInsert(_ row: ExtensionRow) throws { wrote = true }
            func didUpdate(_ row: ExtensionRow) throws { wrote = true }
            func changesForCommit() -> Int? { wrote ? 1 : nil }
        }
    }

    @Test func aReaderFurtherBehindThanTheKeptChangesetsGetsOneReset() throws {
        let test = try TestDatabase()
        let probe = Probe()
        try test.database.register(ProbeExtension(probe: probe), withName: "probe")
        let reader = try test.connection()
        let writer = try test.connection()
        try writer.readWrite { tx in try tx.setObject(0, forKey: "k", inCollection: "c") }
        // States are made on first use: the reader's exists once it touched the extension.
        _ = try reader.read { tx in (try tx.object(forKey: "k", inCollection: "c"), tx.ext("probe")) }
        _ = try reader.beginLongLivedReadTransaction()
        let stateMadeBefore = probe.resets

        let commits = DatabaseState.retainedChangesetLimit + 1
        for value in 1...commits {
            try writer.readWrite { tx in try tx.setObject(value, forKey: "k", inCollection: "c") }
        }

        let step = try reader.beginLongLivedReadTransaction()
        #expect(step.count == 1)
        let reset = try #require(step.first)
        #expect(reset.isReset)
        #expect(reset.snapshot == test.database.snapshot)
        #expect(reset.hasExtensionChange("probe"))
        // Every question about the lost commits answers yes, even for rows it cannot name.
        #expect(reader.hasChange(forKey: "k", inCollection: "c", in: step))
        #expect(reader.hasChange(forKey: "never-written", inCollection: "elsewhere", in: step))
        #expect(reader.didClearAllCollections(in: step))
        #expect(probe.resets == stateMadeBefore + 1)
        // The reader now sees the newest value, read again rather than from a stale cache.
        let value = try reader.read { tx in try tx.object(forKey: "k", inCollection: "c", as: Int.self) }
        #expect(value == commits)
    }

    @Test func aReaderWithinTheKeptChangesetsGetsThemAllAndNoReset() throws {
        let test = try TestDatabase()
        let probe = Probe()
        try test.database.register(ProbeExtension(probe: probe), withName: "probe")
        let reader = try test.connection()
        let writer = try test.connection()
        _ = try reader.read { tx in tx.ext("probe") }
        _ = try reader.beginLongLivedReadTransaction()
        for value in 1...20 {
            try writer.readWrite { tx in try tx.setObject(value, forKey: "k\(value)", inCollection: "c") }
        }
        let step = try reader.beginLongLivedReadTransaction()
        #expect(step.count == 20)
        #expect(step.allSatisfy { !$0.isReset })
        #expect(step.allSatisfy { $0.changes(for: "probe", as: Int.self) == 1 })
        #expect(probe.resets == 0)
        #expect(probe.committed == 20)
    }

    @Test func flushMemoryReachesEveryExtensionState() throws {
        let test = try TestDatabase()
        let probe = Probe()
        try test.database.register(ProbeExtension(probe: probe), withName: "probe")
        let connection = try test.connection()
        try connection.read { tx in _ = tx.ext("probe") }
        connection.flushMemory()
        #expect(probe.flushes == 1)
        connection.flushMemory(.statements)
        #expect(probe.flushes == 1)
    }
}
