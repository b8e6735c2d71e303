extension MemoryTable {
    /// A view of a ``MemoryTable`` pinned to one snapshot, for a read transaction.
    ///
    /// It sees, for each key, the newest version committed at or below ``snapshot``, and keeps
    /// those versions stored until ``end()``. Use it from one thread at a time.
    public final class ReadView {
        /// The snapshot the view reads.
        public let snapshot: UInt64
        private let table: MemoryTable
        private var ended = false

        init(table: MemoryTable, snapshot: UInt64) {
            self.table = table
            self.snapshot = snapshot
        }

        deinit {
            // A view dropped without `end()` must not keep its versions stored forever.
            end()
        }

        /// Whether ``end()`` was called.
        public var isEnded: Bool { ended }

        /// The value of `key` at the view's snapshot, or nil when it has none.
        /// - Complexity: one lock, one hash lookup, and a scan of the key's versions newer than
        ///   the snapshot (usually none).
        /// - Throws: ``MemoryTableError/viewEnded`` after ``end()``.
        public func value(forKey key: Key) throws(MemoryTableError) -> Value? {
            try checkOpen()
            let snapshot = snapshot
            return table.state.withLock { $0.value(forKey: key, at: snapshot) }
        }

        /// The keys that have a value at the view's snapshot, in no particular order.
        /// - Complexity: O(n) in the keys stored.
        /// - Throws: ``MemoryTableError/viewEnded`` after ``end()``.
        public var keys: [Key] {
            get throws(MemoryTableError) { try entries().map(\.key) }
        }

        /// The number of keys that have a value at the view's snapshot.
        /// - Complexity: O(log c) in the commits still retained.
        /// - Throws: ``MemoryTableError/viewEnded`` after ``end()``.
        public var count: Int {
            get throws(MemoryTableError) {
                try checkOpen()
                let snapshot = snapshot
                return table.state.withLock { $0.count(at: snapshot) }
            }
        }

        /// Calls `body` with each key and value at the view's snapshot, in no particular order,
        /// until it sets `stop`.
        ///
        /// The rows are copied out first, so `body` runs without the table's lock and may use
        /// the table (other views, even this one).
        /// - Throws: ``MemoryTableError/viewEnded`` after ``end()``, or what `body` throws.
        public func enumerate(_ body: (_ key: Key, _ value: Value, _ stop: inout Bool) throws -> Void) throws {
            var stop = false
            for (key, value) in try entries() {
                try body(key, value, &stop)
                if stop { return }
            }
        }

        /// Releases the snapshot, letting the table free versions only this view needed.
        ///
        /// Ending twice does nothing; a view dropped without it ends when released.
        public func end() {
            guard !ended else { return }
            ended = true
            let snapshot = snapshot
            table.state.withLock { $0.removeReader(at: snapshot) }
        }

        private func entries() throws(MemoryTableError) -> [(key: Key, value: Value)] {
            try checkOpen()
            let snapshot = snapshot
            return table.state.withLock { $0.entries(at: snapshot) }
        }

        private func checkOpen() throws(MemoryTableError) {
            guard !ended else { throw .viewEnded }
        }
    }
}
