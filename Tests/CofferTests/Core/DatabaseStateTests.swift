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
        #expect(database.noteExternalCommit(start + 1, dataSnapshot: nil).external == nil)
        let (adopted, reset) = database.noteExternalCommit(start + 2, dataSnapshot: nil)
        #expect(adopted == start + 2)
        #expect(reset?.isExternal == true)
        #expect(reset?.isReset == true)
        database.publish(own, by: 1, changedRows: true)
        #expect(database.snapshot == start + 2)
        let caughtUp = database.changesets(after: start + 1, through: database.snapshot)
        #expect(caughtUp?.map(\.isExternal) == [true])
    }

    /// Another process's commits that changed no row (it opened the file, or rebuilt what it
    /// keeps in memory) move the number without a reset; one past the data snapshot last seen is
    /// a reset.
    @Test func anExternalCommitIsAResetOnlyWhenItsDataSnapshotIsNew() {
        var state = DatabaseState(snapshot: 10, previouslyRegisteredExtensionNames: [])
        state.lastDataSnapshot = 8
        let advance = state.noteExternalCommit(20, dataSnapshot: 8)
        #expect(advance?.isReset == false)
        #expect(advance?.isExternal == true)
        #expect(advance?.objectChanges.isEmpty == true)
        #expect(state.snapshot == 20)
        let reset = state.noteExternalCommit(25, dataSnapshot: 24)
        #expect(reset?.isReset == true)
        #expect(state.lastDataSnapshot == 24)
        #expect(state.noteExternalCommit(26, dataSnapshot: 24)?.isReset == false)
        #expect(state.noteExternalCommit(26, dataSnapshot: 30) == nil)
    }

    /// A reader whose SQLite snapshot holds another process's commit this process adopted only
    /// with a later one catches up to a number inside the gap: an external reset covers it.
    @Test func aSnapshotInsideAnExternalGapIsCoveredByAnExternalReset() throws {
        let test = try TestDatabase()
        let database = test.database
        let lagging = try test.connection()
        let start = database.snapshot
        #expect(lagging.snapshot == start)
        _ = database.noteExternalCommit(start + 10, dataSnapshot: start + 10)
        let covered = database.changesets(after: start, through: start + 4)
        #expect(covered?.count == 1)
        #expect(covered?.first?.snapshot == start + 4)
        #expect(covered?.first?.isReset == true && covered?.first?.isExternal == true)
        _ = database.noteExternalCommit(start + 20, dataSnapshot: start + 10)
        // Inside the gap before an external commit that changed no row: nothing to apply.
        #expect(database.changesets(after: start + 10, through: start + 15)?.isEmpty == true)
        #expect(database.changesets(after: start + 10, through: start + 20)?.map(\.isReset) == [false])
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
