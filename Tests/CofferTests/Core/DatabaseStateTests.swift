import CofferTestSupport
import Testing

@testable import Coffer

/// The retained changesets: the range a catch-up asks for, and what pruning keeps.
@Suite struct DatabaseStateTests {
    func changeset(_ snapshot: UInt64) -> Changeset {
        Changeset(
            snapshot: snapshot, connectionID: 1, connectionName: nil, changes: PendingChanges(), customObject: nil,
            extensionChanges: [:])
    }

    func state(holding snapshots: ClosedRange<UInt64>) -> DatabaseState {
        var state = DatabaseState(snapshot: snapshots.upperBound, previouslyRegisteredExtensionNames: [])
        for snapshot in snapshots { state.addPending(changeset(snapshot)) }
        return state
    }

    @Test func aRangeIsReturnedWholeOrNotAtAll() {
        let state = state(holding: 5...40)
        #expect(state.changesets(after: 4, through: 40)?.map(\.snapshot) == Array(5...40))
        #expect(state.changesets(after: 10, through: 11)?.map(\.snapshot) == [11])
        #expect(state.changesets(after: 17, through: 29)?.map(\.snapshot) == Array(18...29))
        #expect(state.changesets(after: 40, through: 40)?.isEmpty == true)
        #expect(state.changesets(after: 30, through: 20)?.isEmpty == true)
        // Dropped at the front, or not committed yet: the caller must flush instead of patching.
        #expect(state.changesets(after: 3, through: 10) == nil)
        #expect(state.changesets(after: 0, through: 6) == nil)
        #expect(state.changesets(after: 38, through: 41) == nil)
        let empty = DatabaseState(snapshot: 0, previouslyRegisteredExtensionNames: [])
        #expect(empty.changesets(after: 0, through: 1) == nil)
    }

    /// Another process's commit can be adopted between this process's SQLite commit and its
    /// publication (the watcher reads outside the snapshot gate): the publication must not take
    /// the database back to the earlier number, or the next writer would not catch up across the
    /// external reset and would act on a stale cached value.
    @Test func aPublicationNeverMovesTheSnapshotBackPastAnAdoptedExternalCommit() throws {
        let test = try TestDatabase()
        let database = test.database
        // A connection still at the start keeps the changesets from being pruned.
        let lagging = try test.connection()
        let start = database.snapshot
        #expect(lagging.snapshot == start)
        let own = changeset(start + 1)
        database.addPending(own)
        // A number this process is committing is its own, not another process's.
        #expect(database.noteExternalCommit(start + 1).1 == nil)
        let (adopted, reset) = database.noteExternalCommit(start + 2)
        #expect(adopted == start + 2)
        #expect(reset?.isExternal == true)
        database.publish(own, by: 1)
        #expect(database.snapshot == start + 2)
        let caughtUp = database.changesets(after: start + 1, through: database.snapshot)
        #expect(caughtUp?.map(\.isExternal) == [true])
    }

    @Test func pruningKeepsWhatTheSlowestConnectionStillNeeds() throws {
        var state = state(holding: 1...30)
        let test = try TestDatabase()
        let connection = try test.connection()
        state.connections[7] = ConnectionEntry(connection: connection, snapshot: 12)
        state.prune()
        #expect(state.changesets.map(\.snapshot) == Array(13...30))
        state.noteConnection(7, at: 30)
        #expect(state.changesets.isEmpty)
        state.addPending(changeset(31))
        state.removePending(snapshot: 31)
        #expect(state.changesets.isEmpty)
    }
}
