extension MemoryTable {
    /// The one writer of a ``MemoryTable``, for a read-write transaction.
    ///
    /// Changes stay private to the view, which reads through them, until ``commit(as:)``
    /// publishes them as one version. The database commit follows: when it succeeds, ``end()``
    /// releases the view; when it fails, ``rollback()`` takes the version back. Use it from one
    /// thread at a time.
    public final class WriteView {
        /// The snapshot the write began at; it stays readable until the view ends.
        public let baseSnapshot: UInt64
        private let table: MemoryTable
        private let id: UInt64
        /// Changed keys and their new values (nil: removed), not yet published.
        private var pending: [Key: Value?] = [:]
        /// Whether every key not in `pending` is removed.
        private var clearsAll = false
        private var ended = false
        /// The version ``commit(as:)`` was given (nil before it, and after ``rollback()``).
        public private(set) var committedVersion: UInt64?

        init(table: MemoryTable, id: UInt64, base: UInt64) {
            self.table = table
            self.id = id
            self.baseSnapshot = base
        }

        deinit {
            // A view dropped without `end()` must not hold the writer slot and its base forever.
            end()
        }

        /// Whether the view was ended or rolled back.
        public var isEnded: Bool { ended }

        // MARK: Reading

        /// The value of `key` with the view's changes applied, or nil when it has none.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back.
        public func value(forKey key: Key) throws(MemoryTableError) -> Value? {
            try checkOpen()
            if let change = pending[key] { return change }
            if clearsAll { return nil }
            // No other commit can happen while this view is open, so the newest version is the base.
            return try table.state.withLock { state throws(MemoryTableError) in
                try state.checkWriter(id)
                return state.value(forKey: key, at: .max)
            }
        }

        /// The keys that have a value with the view's changes applied, in no particular order.
        /// - Complexity: O(n) in the keys stored.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back.
        public var keys: [Key] {
            get throws(MemoryTableError) { try entries().map(\.key) }
        }

        /// The number of keys that have a value with the view's changes applied.
        /// - Complexity: O(p) in the pending changes, plus O(log c) in the commits retained.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back.
        public var count: Int {
            get throws(MemoryTableError) {
                try checkOpen()
                let (pending, clearsAll) = (pending, clearsAll)
                return try table.state.withLock { state throws(MemoryTableError) in
                    try state.checkWriter(id)
                    var count = clearsAll ? 0 : state.count(at: .max)
                    for (key, value) in pending {
                        let inBase = !clearsAll && state.value(forKey: key, at: .max) != nil
                        count += (value != nil ? 1 : 0) - (inBase ? 1 : 0)
                    }
                    return count
                }
            }
        }

        /// Calls `body` with each key and value with the view's changes applied, in no
        /// particular order, until it sets `stop`.
        ///
        /// The rows are copied out first, so `body` may change the view; it sees the rows as
        /// they were when the enumeration began.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back, or what
        ///   `body` throws.
        public func enumerate(_ body: (_ key: Key, _ value: Value, _ stop: inout Bool) throws -> Void) throws {
            var stop = false
            for (key, value) in try entries() {
                try body(key, value, &stop)
                if stop { return }
            }
        }

        private func entries() throws(MemoryTableError) -> [(key: Key, value: Value)] {
            try checkOpen()
            var entries: [(key: Key, value: Value)] = []
            if !clearsAll {
                let base = try table.state.withLock { state throws(MemoryTableError) in
                    try state.checkWriter(id)
                    return state.entries(at: .max)
                }
                entries = base.filter { pending[$0.key] == nil }
            }
            for (key, value) in pending {
                if let value { entries.append((key, value)) }
            }
            return entries
        }

        // MARK: Writing

        /// Sets `key` to `value` in the view's pending changes.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back;
        ///   ``MemoryTableError/alreadyCommitted`` after ``commit(as:)``.
        public func setValue(_ value: Value, forKey key: Key) throws(MemoryTableError) {
            try checkWritable()
            pending[key] = .some(value)
        }

        /// Removes `key` in the view's pending changes.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back;
        ///   ``MemoryTableError/alreadyCommitted`` after ``commit(as:)``.
        public func removeValue(forKey key: Key) throws(MemoryTableError) {
            try checkWritable()
            pending[key] = .some(nil)
        }

        /// Removes every key in the view's pending changes, for an extension being repopulated.
        ///
        /// Like any change it is versioned: readers at older snapshots keep seeing the old rows.
        /// - Throws: ``MemoryTableError/viewEnded`` once the view ended or rolled back;
        ///   ``MemoryTableError/alreadyCommitted`` after ``commit(as:)``.
        public func removeAll() throws(MemoryTableError) {
            try checkWritable()
            pending.removeAll()
            clearsAll = true
        }

        /// Whether the view holds changes not committed yet.
        public var hasPendingChanges: Bool { !pending.isEmpty || clearsAll }

        // MARK: Finishing

        /// Publishes the pending changes as `version`: views at `version` or later see them,
        /// views below it keep seeing older versions.
        ///
        /// Coffer calls it before the SQLite commit, with the snapshot that commit will publish,
        /// so a reader that pins that snapshot finds the rows already there. The view stays
        /// open: ``end()`` once the database commit succeeded, ``rollback()`` if it failed.
        /// Pending changes that change nothing (none, or only removals of missing keys) publish
        /// no version, as a database transaction without changes makes no new snapshot.
        /// - Complexity: O(p) in the pending changes; O(n) in the keys stored after ``removeAll()``.
        /// - Throws: ``MemoryTableError/versionNotIncreasing(version:latest:)`` when `version` is
        ///   not after every committed version and every snapshot a view was begun at;
        ///   ``MemoryTableError/alreadyCommitted`` on a second call;
        ///   ``MemoryTableError/viewEnded`` once the view ended or rolled back.
        public func commit(as version: UInt64) throws(MemoryTableError) {
            try checkWritable()
            let (pending, clearsAll) = (pending, clearsAll)
            try table.state.withLock { state throws(MemoryTableError) in
                try state.commit(writer: id, pending, clearsAll: clearsAll, as: version)
            }
            self.pending = [:]
            self.clearsAll = false
            committedVersion = version
        }

        /// Abandons the write: drops the pending changes or, after ``commit(as:)``, takes the
        /// committed version back (the database commit it belonged to failed), and ends the view.
        ///
        /// Views begun at the taken-back version meanwhile (Coffer has none: no reader can pin a
        /// snapshot whose commit failed) see the rows as before it. Does nothing once ended.
        public func rollback() {
            guard !ended else { return }
            ended = true
            pending = [:]
            let id = id
            table.state.withLock { state in
                guard let writer = state.writer, writer.id == id else { return }
                if writer.commit != nil {
                    state.revertCommit(writer: id)
                } else {
                    state.removeWriter(id)
                }
            }
            committedVersion = nil
        }

        /// Releases the writer slot and the base snapshot, keeping what was committed; pending
        /// changes not committed are dropped.
        ///
        /// Ending twice does nothing; a view dropped without it ends when released.
        public func end() {
            guard !ended else { return }
            ended = true
            pending = [:]
            let id = id
            table.state.withLock { $0.removeWriter(id) }
        }

        private func checkOpen() throws(MemoryTableError) {
            guard !ended else { throw .viewEnded }
        }

        private func checkWritable() throws(MemoryTableError) {
            try checkOpen()
            guard committedVersion == nil else { throw .alreadyCommitted }
        }
    }
}
