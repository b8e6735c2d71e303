import Testing

@testable import Coffer

/// The snapshot-versioned memory table of non-persistent extensions: each read view keeps the
/// rows of its snapshot whatever is committed later, versions no view can reach are freed, and
/// misuse is reported as a ``MemoryTableError``.
@Suite struct MemoryTableTests {
    typealias Table = MemoryTable<String, Int>

    /// Commits what `body` writes as `version`, from a write view based on the version before.
    private func commit(_ table: Table, as version: UInt64, _ body: (Table.WriteView) throws -> Void) throws {
        let writer = try table.beginWrite(at: version - 1)
        try body(writer)
        try writer.commit(as: version)
        writer.end()
    }

    private func rows(_ view: Table.ReadView) throws -> [String: Int] {
        var rows: [String: Int] = [:]
        try view.enumerate { key, value, _ in rows[key] = value }
        #expect(try view.count == rows.count)
        #expect(try Set(view.keys) == Set(rows.keys))
        for (key, value) in rows { #expect(try view.value(forKey: key) == value) }
        return rows
    }

    private func rows(_ view: Table.WriteView) throws -> [String: Int] {
        var rows: [String: Int] = [:]
        try view.enumerate { key, value, _ in rows[key] = value }
        #expect(try view.count == rows.count)
        #expect(try Set(view.keys) == Set(rows.keys))
        for (key, value) in rows { #expect(try view.value(forKey: key) == value) }
        return rows
    }

    // MARK: Isolation

    @Test func aReaderKeepsItsSnapshotWhileLaterVersionsCommit() throws {
        let table = Table()
        try commit(table, as: 1) { writer in
            for key in ["a", "b", "c"] { try writer.setValue(1, forKey: key) }
        }
        let atOne = try table.beginRead(at: 1)
        try commit(table, as: 2) { writer in
            try writer.setValue(2, forKey: "a")
            try writer.removeValue(forKey: "b")
            try writer.setValue(2, forKey: "d")
        }
        let atTwo = try table.beginRead(at: 2)
        try commit(table, as: 3) { writer in
            try writer.removeAll()
            try writer.setValue(3, forKey: "e")
        }
        let atThree = try table.beginRead(at: 3)
        #expect(try rows(atOne) == ["a": 1, "b": 1, "c": 1])
        #expect(try rows(atTwo) == ["a": 2, "c": 1, "d": 2])
        #expect(try rows(atThree) == ["e": 3])
        #expect(try atOne.value(forKey: "e") == nil)
        #expect(try atThree.value(forKey: "a") == nil)
        // A snapshot after the newest version sees the newest version.
        let later = try table.beginRead(at: 7)
        #expect(try rows(later) == ["e": 3])
        for view in [atOne, atTwo, atThree, later] { view.end() }
    }

    @Test func aWriteViewReadsThroughItsPendingChanges() throws {
        let table = Table()
        try commit(table, as: 1) { writer in
            try writer.setValue(1, forKey: "a")
            try writer.setValue(1, forKey: "b")
        }
        let reader = try table.beginRead(at: 1)
        let writer = try table.beginWrite(at: 1)
        try writer.setValue(10, forKey: "a")
        try writer.removeValue(forKey: "b")
        try writer.removeValue(forKey: "missing")
        try writer.setValue(3, forKey: "c")
        #expect(try rows(writer) == ["a": 10, "c": 3])
        #expect(try writer.value(forKey: "b") == nil)
        try writer.removeAll()
        #expect(try rows(writer).isEmpty)
        try writer.setValue(4, forKey: "d")
        try writer.setValue(5, forKey: "a")
        #expect(try rows(writer) == ["a": 5, "d": 4])
        // Nothing is visible before the commit, to a reader at any snapshot.
        #expect(try rows(reader) == ["a": 1, "b": 1])
        #expect(try rows(try table.beginRead(at: 2)) == ["a": 1, "b": 1])
        try writer.commit(as: 3)
        #expect(writer.committedVersion == 3)
        #expect(try rows(writer) == ["a": 5, "d": 4])
        writer.end()
        #expect(try rows(reader) == ["a": 1, "b": 1])
        #expect(try rows(try table.beginRead(at: 3)) == ["a": 5, "d": 4])
        reader.end()
    }

    @Test func aRollbackPublishesNothing() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        let writer = try table.beginWrite(at: 1)
        try writer.setValue(2, forKey: "a")
        try writer.setValue(2, forKey: "b")
        try writer.removeAll()
        writer.rollback()
        #expect(writer.isEnded)
        #expect(table.newestVersion == 1)
        #expect(table.retainedVersionCount == 1)
        #expect(try rows(try table.beginRead(at: 1)) == ["a": 1])
        // The slot is free again, and the version the rollback never used can be committed.
        try commit(table, as: 2) { writer in try writer.setValue(3, forKey: "a") }
        #expect(try rows(try table.beginRead(at: 2)) == ["a": 3])
    }

    @Test(arguments: [false, true])
    func aRollbackAfterCommitTakesTheVersionBack(clearing: Bool) throws {
        let table = Table()
        try commit(table, as: 1) { writer in
            try writer.setValue(1, forKey: "a")
            try writer.setValue(1, forKey: "b")
        }
        let writer = try table.beginWrite(at: 1)
        if clearing { try writer.removeAll() }
        try writer.setValue(2, forKey: "a")
        try writer.removeValue(forKey: "b")
        try writer.setValue(2, forKey: "c")
        try writer.commit(as: 2)
        #expect(table.newestVersion == 2)
        // A reader that pinned the base snapshot before the database commit registers after it.
        let base = try table.beginRead(at: 1)
        #expect(try rows(base) == ["a": 1, "b": 1])
        writer.rollback()
        #expect(writer.committedVersion == nil)
        #expect(table.newestVersion == 1)
        #expect(table.retainedVersionCount == 2)
        #expect(try rows(base) == ["a": 1, "b": 1])
        base.end()
        #expect(try rows(try table.beginRead(at: 1)) == ["a": 1, "b": 1])
        // The database commit failed, so its snapshot number is used again.
        try commit(table, as: 2) { writer in try writer.setValue(5, forKey: "b") }
        #expect(try rows(try table.beginRead(at: 2)) == ["a": 1, "b": 5])
        #expect(table.retainedVersionCount == 2)
    }

    @Test func aCommitThatChangesNothingPublishesNoVersion() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        let writer = try table.beginWrite(at: 1)
        try writer.removeValue(forKey: "missing")
        try writer.commit(as: 2)
        #expect(writer.committedVersion == 2)
        #expect(table.newestVersion == 1)
        #expect(table.retainedVersionCount == 1)
        writer.rollback()
        #expect(table.newestVersion == 1)
        // The database made no snapshot 2 either: the next commit uses it.
        try commit(table, as: 2) { writer in try writer.setValue(2, forKey: "a") }
        #expect(try rows(try table.beginRead(at: 2)) == ["a": 2])
        #expect(try rows(try table.beginRead(at: 5)) == ["a": 2])
    }

    // MARK: Memory release

    @Test func endingTheLongLivedReaderFreesWhatOnlyItSaw() throws {
        let table = Table()
        try commit(table, as: 1) { writer in
            for key in ["a", "b", "c"] { try writer.setValue(1, forKey: key) }
        }
        let longLived = try table.beginRead(at: 1)
        try commit(table, as: 2) { writer in
            try writer.setValue(2, forKey: "a")
            try writer.removeValue(forKey: "b")
        }
        try commit(table, as: 3) { writer in try writer.setValue(3, forKey: "a") }
        // a: 1, 2, 3; b: 1 and its removal; c: 1.
        #expect(table.retainedVersionCount == 6)
        #expect(try rows(longLived) == ["a": 1, "b": 1, "c": 1])
        longLived.end()
        // One version per live key, none for the removed one.
        #expect(table.retainedVersionCount == 2)
        #expect(table.oldestReadableSnapshot == 3)
        try commit(table, as: 4) { writer in try writer.removeAll() }
        #expect(table.retainedVersionCount == 0)
        #expect(try rows(try table.beginRead(at: 4)).isEmpty)
    }

    @Test(arguments: [false, true])
    func twoReadersEachKeepWhatTheyNeed(endingTheOlderFirst: Bool) throws {
        let table = Table()
        try commit(table, as: 1) { writer in
            try writer.setValue(1, forKey: "a")
            try writer.setValue(1, forKey: "b")
        }
        let older = try table.beginRead(at: 1)
        try commit(table, as: 2) { writer in try writer.setValue(2, forKey: "a") }
        let newer = try table.beginRead(at: 2)
        try commit(table, as: 3) { writer in
            try writer.setValue(3, forKey: "a")
            try writer.removeValue(forKey: "b")
        }
        // a: 1, 2, 3; b: 1 and its removal.
        #expect(table.retainedVersionCount == 5)
        if endingTheOlderFirst {
            older.end()
            // a: 2 for the newer reader, 3; b: 1 and its removal.
            #expect(table.retainedVersionCount == 4)
            #expect(try rows(newer) == ["a": 2, "b": 1])
            newer.end()
        } else {
            newer.end()
            // The older reader's snapshot still holds everything.
            #expect(table.retainedVersionCount == 5)
            #expect(try rows(older) == ["a": 1, "b": 1])
            older.end()
        }
        #expect(table.retainedVersionCount == 1)
        #expect(try rows(try table.beginRead(at: 3)) == ["a": 3])
    }

    @Test func aCommittedWritersBaseStaysReadableUntilItEnds() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        let writer = try table.beginWrite(at: 1)
        try writer.setValue(2, forKey: "a")
        try writer.commit(as: 2)
        #expect(table.retainedVersionCount == 2)
        let base = try table.beginRead(at: 1)
        writer.end()
        #expect(try rows(base) == ["a": 1])
        base.end()
        #expect(table.retainedVersionCount == 1)
        // Nothing holds snapshot 1 any more: a view there could miss versions, so it is refused.
        #expect(throws: MemoryTableError.snapshotReleased(snapshot: 1, oldestReadable: 2)) {
            try table.beginRead(at: 1)
        }
    }

    @Test func theRetentionFloorKeepsSnapshotsForReadersNotBegunYet() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        table.retentionFloor = 1
        try commit(table, as: 2) { writer in try writer.setValue(2, forKey: "a") }
        try commit(table, as: 3) { writer in try writer.removeValue(forKey: "a") }
        #expect(table.retainedVersionCount == 3)
        #expect(try rows(try table.beginRead(at: 1)) == ["a": 1])
        #expect(try rows(try table.beginRead(at: 2)) == ["a": 2])
        table.retentionFloor = 2
        #expect(table.retainedVersionCount == 2)
        #expect(table.oldestReadableSnapshot == 2)
        table.retentionFloor = nil
        #expect(table.retainedVersionCount == 0)
        #expect(table.oldestReadableSnapshot == 3)
    }

    @Test func releasedViewsEndThemselves() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        do {
            let reader = try table.beginRead(at: 1)
            try commit(table, as: 2) { writer in try writer.setValue(2, forKey: "a") }
            #expect(try reader.value(forKey: "a") == 1)
            withExtendedLifetime(reader) { #expect(table.retainedVersionCount == 2) }
        }
        #expect(table.retainedVersionCount == 1)
        do {
            let writer = try table.beginWrite(at: 2)
            try writer.setValue(3, forKey: "a")
        }
        // The dropped writer published nothing and freed the slot.
        #expect(table.newestVersion == 2)
        try commit(table, as: 3) { writer in try writer.setValue(3, forKey: "a") }
        #expect(try rows(try table.beginRead(at: 3)) == ["a": 3])
    }

    // MARK: Misuse

    @Test func aSecondWriterIsRefusedUntilTheFirstEnds() throws {
        let table = Table()
        let first = try table.beginWrite(at: 0)
        #expect(throws: MemoryTableError.writeInProgress) { try table.beginWrite(at: 0) }
        try first.setValue(1, forKey: "a")
        try first.commit(as: 1)
        // Committed but not ended: the database commit is still running.
        #expect(throws: MemoryTableError.writeInProgress) { try table.beginWrite(at: 1) }
        first.end()
        let second = try table.beginWrite(at: 1)
        second.end()
    }

    @Test func aWriteBelowTheNewestVersionIsStale() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        try commit(table, as: 5) { writer in try writer.setValue(5, forKey: "a") }
        #expect(throws: MemoryTableError.staleWrite(snapshot: 3, newestVersion: 5)) {
            try table.beginWrite(at: 3)
        }
        // A base after the newest version is fine: database commits need not touch the table.
        let writer = try table.beginWrite(at: 8)
        #expect(try writer.value(forKey: "a") == 5)
        writer.end()
    }

    @Test func aCommitMustComeAfterEveryVersionAndPinnedSnapshot() throws {
        let table = Table()
        try commit(table, as: 4) { writer in try writer.setValue(4, forKey: "a") }
        let writer = try table.beginWrite(at: 4)
        try writer.setValue(5, forKey: "a")
        #expect(throws: MemoryTableError.versionNotIncreasing(version: 4, latest: 4)) {
            try writer.commit(as: 4)
        }
        // A reader pinned at 6 read the table without this commit: it cannot be version 6.
        let reader = try table.beginRead(at: 6)
        #expect(throws: MemoryTableError.versionNotIncreasing(version: 6, latest: 6)) {
            try writer.commit(as: 6)
        }
        try writer.commit(as: 7)
        #expect(throws: MemoryTableError.alreadyCommitted) { try writer.commit(as: 8) }
        #expect(throws: MemoryTableError.alreadyCommitted) { try writer.setValue(1, forKey: "b") }
        #expect(throws: MemoryTableError.alreadyCommitted) { try writer.removeValue(forKey: "a") }
        #expect(throws: MemoryTableError.alreadyCommitted) { try writer.removeAll() }
        writer.end()
        #expect(try reader.value(forKey: "a") == 4)
        reader.end()
    }

    @Test func endedViewsThrow() throws {
        let table = Table()
        try commit(table, as: 1) { writer in try writer.setValue(1, forKey: "a") }
        let reader = try table.beginRead(at: 1)
        reader.end()
        reader.end()
        #expect(reader.isEnded)
        #expect(throws: MemoryTableError.viewEnded) { try reader.value(forKey: "a") }
        #expect(throws: MemoryTableError.viewEnded) { try reader.keys }
        #expect(throws: MemoryTableError.viewEnded) { try reader.count }
        #expect(throws: MemoryTableError.viewEnded) { try reader.enumerate { _, _, _ in } }

        let writers = [try table.beginWrite(at: 1)]
        writers[0].end()
        writers[0].end()
        let rolledBack = try table.beginWrite(at: 1)
        rolledBack.rollback()
        rolledBack.rollback()
        for writer in writers + [rolledBack] {
            #expect(writer.isEnded)
            #expect(throws: MemoryTableError.viewEnded) { try writer.value(forKey: "a") }
            #expect(throws: MemoryTableError.viewEnded) { try writer.keys }
            #expect(throws: MemoryTableError.viewEnded) { try writer.count }
            #expect(throws: MemoryTableError.viewEnded) { try writer.enumerate { _, _, _ in } }
            #expect(throws: MemoryTableError.viewEnded) { try writer.setValue(2, forKey: "a") }
            #expect(throws: MemoryTableError.viewEnded) { try writer.removeValue(forKey: "a") }
            #expect(throws: MemoryTableError.viewEnded) { try writer.removeAll() }
            #expect(throws: MemoryTableError.viewEnded) { try writer.commit(as: 2) }
        }
        // Ending a committed view twice keeps the commit; a rollback after the end does nothing.
        let committed = try table.beginWrite(at: 1)
        try committed.setValue(2, forKey: "a")
        try committed.commit(as: 2)
        committed.end()
        committed.rollback()
        #expect(table.newestVersion == 2)
        #expect(try table.beginRead(at: 2).value(forKey: "a") == 2)
    }
}
