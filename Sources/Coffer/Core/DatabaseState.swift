import Foundation

/// The database-wide state every transaction consults: YapDatabase's "snapshot queue" state,
/// kept behind the database's mutex.
struct DatabaseState {
    /// The last committed snapshot.
    var snapshot: UInt64
    /// The snapshot of this process's last published commit (or of the open): with
    /// multi-process support, a process alone with the file does not write its numbers there,
    /// so a reader's snapshot is the later of this and the number it reads (see `pinReadSnapshot`).
    var lastOwnCommit: UInt64
    /// The file's data snapshot (`SQL.readDataSnapshot`) when this process last read or wrote
    /// it: a later one means another process changed rows, not only its numbers.
    var lastDataSnapshot: UInt64 = 0
    /// Recent changesets in snapshot order, including one registered just before its SQLite commit.
    var changesets: [Changeset] = []
    /// Live connections and the snapshot each one's caches reflect.
    var connections: [UInt64: ConnectionEntry] = [:]
    var nextConnectionID: UInt64 = 1
    var changeStreams: [UInt64: AsyncStream<Changeset>.Continuation] = [:]
    var nextStreamID: UInt64 = 1
    var previouslyRegisteredExtensionNames: [String]

    /// Changesets kept at most, even when a connection lags behind (it then flushes its caches).
    static let retainedChangesetLimit = 10_000

    init(snapshot: UInt64, previouslyRegisteredExtensionNames: [String]) {
        self.snapshot = snapshot
        self.lastOwnCommit = snapshot
        self.previouslyRegisteredExtensionNames = previouslyRegisteredExtensionNames
    }

    /// The changesets after `since` up to and including `until`, or nil when some were dropped.
    ///
    /// `changesets` holds consecutive snapshot numbers in order (one writer appends them; pruning
    /// drops a prefix), except that an external reset follows a gap: the numbers other processes
    /// used. So the range is found by bisection: this runs under the database's lock at every
    /// catch-up, and a scan over every retained changeset (hundreds behind a busy writer) held the
    /// committing writer up.
    ///
    /// `until` may lie in such a gap: a reader's SQLite snapshot held another process's commit
    /// that this process adopted only with a later one. Then the external changeset after it
    /// covers it, as an external reset at `until` (nothing when that changeset changed no row).
    func changesets(after since: UInt64, through until: UInt64) -> [Changeset]? {
        guard until > since else { return [] }
        let start = firstIndex(after: since)
        let end = firstIndex(after: until)
        guard start < changesets.count, changesets[start].snapshot == since + 1 || changesets[start].isExternal
        else { return nil }
        var found = Array(changesets[start..<end])
        if found.last?.snapshot != until {
            guard end < changesets.count, changesets[end].isExternal else { return nil }
            if changesets[end].isReset { found.append(Changeset(resetTo: until, external: true)) }
        }
        return found
    }

    /// Moves the database to `snapshot`, the number another process's commit left in the file,
    /// and returns the external changeset that stands for the commits in between; nil when this
    /// process knows `snapshot` already.
    ///
    /// It is a reset unless `dataSnapshot` (read in the same SQLite snapshot; nil when not read)
    /// says no row changed since this process last looked: then the other process only rebuilt
    /// what it keeps in memory, or opened the file, and nothing here is stale.
    ///
    /// A number no later than a changeset registered for a commit of this process in progress
    /// (its SQLite commit may be visible before it is published) is this process's own.
    mutating func noteExternalCommit(_ snapshot: UInt64, dataSnapshot: UInt64?) -> Changeset? {
        guard snapshot > max(self.snapshot, changesets.last?.snapshot ?? 0) else { return nil }
        let changedRows = dataSnapshot.map { $0 > lastDataSnapshot } ?? true
        if let dataSnapshot { lastDataSnapshot = max(lastDataSnapshot, dataSnapshot) }
        let changeset =
            changedRows ? Changeset(resetTo: snapshot, external: true) : Changeset(externalAdvanceTo: snapshot)
        changesets.append(changeset)
        self.snapshot = snapshot
        prune()
        return changeset
    }

    /// The index of the first changeset whose snapshot is after `snapshot` (`changesets.count` if none).
    private func firstIndex(after snapshot: UInt64) -> Int {
        var low = 0
        var high = changesets.count
        while low < high {
            let middle = (low + high) / 2
            if changesets[middle].snapshot <= snapshot { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func addPending(_ changeset: Changeset) {
        changesets.append(changeset)
    }

    mutating func removePending(snapshot: UInt64) {
        changesets.removeAll { $0.snapshot == snapshot }
    }

    /// Records that a connection's caches now reflect `snapshot`, and drops changesets every
    /// live connection has seen.
    mutating func noteConnection(_ id: UInt64, at snapshot: UInt64) {
        connections[id]?.snapshot = snapshot
        prune()
    }

    /// The oldest snapshot a live connection is at (or may pin next): the newest one if none is behind.
    var oldestConnectionSnapshot: UInt64 {
        // A loop, not `map(...).min()`: this runs at every commit, and the array was an allocation.
        var floor = snapshot
        for entry in connections.values where entry.snapshot < floor { floor = entry.snapshot }
        return floor
    }

    mutating func prune() {
        let seenByAll = firstIndex(after: oldestConnectionSnapshot)
        if seenByAll == changesets.count {
            // The common case (every connection caught up) without `replaceSubrange`'s general path.
            changesets.removeAll(keepingCapacity: true)
        } else if seenByAll > 0 {
            changesets.removeFirst(seenByAll)
        }
        if changesets.count > Self.retainedChangesetLimit {
            changesets.removeFirst(changesets.count - Self.retainedChangesetLimit)
        }
    }

    /// Removes every change stream and returns them, to be finished outside the lock: finishing
    /// one runs its termination handler, which takes the same lock.
    mutating func takeChangeStreams() -> [AsyncStream<Changeset>.Continuation] {
        defer { changeStreams.removeAll() }
        return Array(changeStreams.values)
    }
}

/// A weak reference to a live connection plus the snapshot its caches reflect.
final class ConnectionEntry {
    weak var connection: Connection?
    var snapshot: UInt64

    init(connection: Connection, snapshot: UInt64) {
        self.connection = connection
        self.snapshot = snapshot
    }
}
