import CofferSQLite
import Dispatch
import Foundation

extension Database {
    /// Hands out a new connection id.
    func allocateConnectionID() -> UInt64 {
        state.withLock { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            return id
        }
    }

    /// Adds a connection to the state table, at the current snapshot.
    func attach(_ connection: Connection) {
        state.withLock { state in
            state.connections[connection.id] = ConnectionEntry(connection: connection, snapshot: state.snapshot)
        }
    }

    func unregister(connectionID: UInt64) {
        state.withLock { state in
            state.connections[connectionID] = nil
            state.prune()
        }
    }

    /// Makes a changeset visible to readers that see its SQLite commit (called before COMMIT).
    func addPending(_ changeset: Changeset) {
        state.withLock { $0.addPending(changeset) }
    }

    /// Forgets a changeset whose commit failed.
    func removePending(snapshot: UInt64) {
        state.withLock { $0.removePending(snapshot: snapshot) }
    }

    /// Makes a committed changeset's snapshot the database's (inside the snapshot gate, right
    /// after SQLite's `COMMIT`).
    func publish(_ changeset: Changeset, by committer: UInt64, changedRows: Bool) {
        state.withLock { state in
            if changedRows { state.lastDataSnapshot = max(state.lastDataSnapshot, changeset.snapshot) }
            // Never backwards: with multi-process support, another process can commit between
            // this SQLite commit and its publication, and the watcher adopt that later number.
            state.snapshot = max(state.snapshot, changeset.snapshot)
            state.lastOwnCommit = changeset.snapshot
            state.connections[committer]?.snapshot = changeset.snapshot
            // Without this, a connection that only writes would keep every changeset (and, under
            // the share policy, every value) until some connection ends a read.
            state.prune()
        }
    }

    /// Moves the database to `snapshot`, read from the file, when another process committed it.
    /// - Returns: the snapshot of a transaction that read `snapshot` from the file (the later of
    ///   it and this process's last commit, which a process alone with the file does not write
    ///   there), and the external changeset when the database moved (see
    ///   `DatabaseState.noteExternalCommit`).
    func noteExternalCommit(
        _ snapshot: UInt64, dataSnapshot: UInt64?
    ) -> (readSnapshot: UInt64, external: Changeset?) {
        state.withLock { state in
            let external = state.noteExternalCommit(snapshot, dataSnapshot: dataSnapshot)
            return (max(snapshot, state.lastOwnCommit), external)
        }
    }

    /// Tells everyone about a published changeset: sibling catch-up, the stream, the notification.
    func announce(_ changeset: Changeset, by committer: UInt64) {
        let (siblings, streams) = state.withLock { state -> ([Connection], [AsyncStream<Changeset>.Continuation]) in
            // A connection alone and no stream, as a small app has them, need no arrays built.
            let alone = state.connections.count == 1 && state.connections.first?.key == committer
            let siblings =
                alone ? [] : state.connections.compactMap { id, entry in id == committer ? nil : entry.connection }
            return (siblings, state.changeStreams.isEmpty ? [] : Array(state.changeStreams.values))
        }
        for sibling in siblings {
            sibling.scheduleCatchUp()
        }
        for stream in streams {
            stream.yield(changeset)
        }
        notifier.post(changeset)
    }

    /// Runs a completion callback on `queue` (default: the notification queue), after the
    /// notifications of the commits before it.
    func deliverCompletion(on queue: DispatchQueue?, _ block: @escaping @Sendable () -> Void) {
        notifier.deliver(on: queue, block)
    }

    /// Saves the last committed snapshot number in `yap2` when it moved since the file was opened,
    /// so the numbers go on growing across launches (commits do not write it: see `SnapshotGate`).
    ///
    /// Under multi-process support only a number past the file's is written, each statement on
    /// its own: another process may have written a later one, and the file's number never goes
    /// back (a process alone with the file wrote none of its own).
    func persistSnapshot() {
        let snapshot = state.withLock { $0.snapshot }
        guard snapshot != openedSnapshot else { return }
        let statements = options.multiProcessSupport ? [SQL.insertSnapshotIfMissing, SQL.raiseSnapshot] : [SQL.yapSet]
        do {
            try checkpointer.withHandle(openingWith: openCheckpointHandle) { handle in
                try mapSQLite {
                    for sql in statements {
                        let stmt = try handle.cachedStatement(sql)
                        try stmt.bind(SQL.snapshotExtension, at: 1)
                        try stmt.bind(SQL.snapshotKey, at: 2)
                        try stmt.bind(Int64(bitPattern: snapshot), at: 3)
                        try stmt.run()
                    }
                }
            }
        } catch {
            logger.warning(
                "Coffer: could not save the snapshot number on close",
                metadata: ["path": "\(url.path)", "error": "\(error)"])
        }
    }

    /// Changesets in `(since, until]`, or nil when some are no longer retained.
    func changesets(after since: UInt64, through until: UInt64) -> [Changeset]? {
        state.withLock { $0.changesets(after: since, through: until) }
    }

    /// Every changeset committed from now on, as an asynchronous sequence.
    ///
    /// Each access returns a new, independent sequence; it ends when the database is closed or
    /// released (at once when it is closed already).
    public var changes: DatabaseChanges {
        let (stream, continuation) = AsyncStream<Changeset>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state -> UInt64? in
            // Under the state lock: the close finishes the registered streams under it too.
            guard !gate.isClosed else { return nil }
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.changeStreams[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return DatabaseChanges(stream: stream)
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.changeStreams.removeValue(forKey: id) }
        }
        return DatabaseChanges(stream: stream)
    }

    /// Checkpoints the WAL now and waits: `.truncate` also empties the WAL file when no reader pins it.
    /// - Throws: ``DatabaseError`` (`.busy` when readers prevented a full checkpoint, `.closed`
    ///   once the database is closed).
    public func checkpoint(truncate: Bool = false) throws {
        try gate.checkOpen()
        try checkpointer.withHandle(openingWith: openCheckpointHandle) { handle in
            try mapSQLite { _ = try handle.checkpoint(truncate ? .truncate : .passive) }
        }
    }
}

/// The changesets a database commits, in commit order (see ``Database/changes``).
public struct DatabaseChanges: AsyncSequence, Sendable {
    /// Each element is one committed changeset.
    public typealias Element = Changeset
    let stream: AsyncStream<Changeset>

    /// Creates the iterator; iteration ends when the database is closed or released.
    public func makeAsyncIterator() -> AsyncStream<Changeset>.Iterator {
        stream.makeAsyncIterator()
    }
}
