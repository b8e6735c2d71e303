extension MemoryTable {
    /// Everything the table's lock guards: the versions of every key and who can still reach them.
    struct State {
        /// Every key that has a version some reader may see, with its versions oldest first.
        var rows: [Key: MemoryTableVersionList<Value>] = [:]
        /// The number of the newest committed version (0 before the first commit).
        var newestVersion: UInt64 = 0
        /// The number of visible keys after each retained commit, oldest first; the first entry
        /// is at or below `prunedFloor`, so every readable snapshot finds its count.
        var counts: [(version: UInt64, count: Int)] = [(0, 0)]
        /// The versions stored in `rows`, tombstones included.
        var retainedVersionCount = 0
        /// The snapshots of live read views, with how many views each.
        var readers: [UInt64: Int] = [:]
        /// The open write view, if any.
        var writer: Writer?
        /// A snapshot below which the owner says no new reader will begin.
        var retentionFloor: UInt64?
        /// Asked at every pruning for the same, when the owner can always say (Coffer: the
        /// oldest snapshot a connection of the database may still pin).
        var retentionFloorProvider: (@Sendable () -> UInt64)?
        /// The highest floor pruning ran at: snapshots below it may have lost versions.
        var prunedFloor: UInt64 = 0
        /// The highest snapshot a view was begun at; a commit must come after it.
        var highestBegunSnapshot: UInt64 = 0
        var pruneQueue = PruneQueue()
        var nextWriterID: UInt64 = 1

        /// The open write view's slot: held from `beginWrite` until the view ends.
        struct Writer {
            let id: UInt64
            let base: UInt64
            var commit: CommitRecord?
        }

        /// What `rollback()` needs to take a committed version back.
        struct CommitRecord {
            let version: UInt64
            let previousNewest: UInt64
            let keys: [Key]
            let queued: Int
        }

        /// Keys that hold a version pruning can free, in the order those versions became
        /// prunable: a key is queued under the commit that superseded or removed one of its
        /// versions, and commits come in increasing order, so the queue is sorted by version
        /// and pruning pops only what the floor passed instead of scanning every key.
        struct PruneQueue {
            private var items: [(version: UInt64, key: Key)] = []
            private var head = 0

            var first: (version: UInt64, key: Key)? { head < items.count ? items[head] : nil }

            mutating func append(_ version: UInt64, _ key: Key) { items.append((version, key)) }

            mutating func removeFirst() {
                head += 1
                // Dropping the popped prefix once it is half the array keeps the cost amortized O(1).
                if head > 32, head * 2 > items.count {
                    items.removeFirst(head)
                    head = 0
                }
            }

            /// Drops the `count` newest items (those of a commit being taken back).
            mutating func removeLast(_ count: Int) { items.removeLast(count) }
        }

        // MARK: Reading

        func value(forKey key: Key, at snapshot: UInt64) -> Value? {
            rows[key]?.version(at: snapshot)?.value
        }

        func count(at snapshot: UInt64) -> Int {
            // The last entry at or below `snapshot`, by bisection.
            var low = 0
            var high = counts.count
            while low < high {
                let middle = (low + high) / 2
                if counts[middle].version <= snapshot { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? counts[low - 1].count : 0
        }

        func entries(at snapshot: UInt64) -> [(key: Key, value: Value)] {
            var entries: [(key: Key, value: Value)] = []
            entries.reserveCapacity(count(at: snapshot))
            for (key, list) in rows {
                if let value = list.version(at: snapshot)?.value { entries.append((key, value)) }
            }
            return entries
        }

        // MARK: Views

        /// Checks that versions a reader at `snapshot` needs are all still stored.
        func checkReadable(_ snapshot: UInt64) throws(MemoryTableError) {
            guard snapshot >= prunedFloor else {
                throw .snapshotReleased(snapshot: snapshot, oldestReadable: prunedFloor)
            }
        }

        mutating func addReader(at snapshot: UInt64) throws(MemoryTableError) {
            try checkReadable(snapshot)
            readers[snapshot, default: 0] += 1
            highestBegunSnapshot = max(highestBegunSnapshot, snapshot)
        }

        mutating func removeReader(at snapshot: UInt64) {
            guard let views = readers[snapshot] else { return }
            readers[snapshot] = views > 1 ? views - 1 : nil
            prune()
        }

        mutating func addWriter(at snapshot: UInt64) throws(MemoryTableError) -> UInt64 {
            guard writer == nil else { throw .writeInProgress }
            guard snapshot >= newestVersion else {
                throw .staleWrite(snapshot: snapshot, newestVersion: newestVersion)
            }
            let id = nextWriterID
            nextWriterID += 1
            writer = Writer(id: id, base: snapshot, commit: nil)
            highestBegunSnapshot = max(highestBegunSnapshot, snapshot)
            return id
        }

        /// Checks that `id` is the open writer (not ended, rolled back or taken back).
        func checkWriter(_ id: UInt64) throws(MemoryTableError) {
            guard writer?.id == id else { throw .viewEnded }
        }

        mutating func removeWriter(_ id: UInt64) {
            guard writer?.id == id else { return }
            writer = nil
            prune()
        }

        // MARK: Pruning

        /// The oldest snapshot anyone may still read: a live reader, the open writer's base (a
        /// reader that pinned it before the commit may register after it), the owner's floor,
        /// or else the newest version.
        private var floor: UInt64 {
            var floor = newestVersion
            for snapshot in readers.keys where snapshot < floor { floor = snapshot }
            if let writer, writer.base < floor { floor = writer.base }
            if let retentionFloor, retentionFloor < floor { floor = retentionFloor }
            if let provided = retentionFloorProvider?(), provided < floor { floor = provided }
            return max(floor, prunedFloor)
        }

        /// Frees every version no reader at the floor or later can see.
        mutating func prune() {
            let floor = floor
            prunedFloor = floor
            while let (version, key) = pruneQueue.first, version <= floor {
                pruneQueue.removeFirst()
                // A key queued by several commits is pruned by the first pop the floor allows;
                // later pops find nothing left to free.
                guard let list = rows[key] else { continue }
                let (pruned, removed) = list.pruned(through: floor)
                guard removed > 0 else { continue }
                rows[key] = pruned
                retainedVersionCount -= removed
            }
            var firstKept = 0
            while firstKept + 1 < counts.count, counts[firstKept + 1].version <= floor { firstKept += 1 }
            if firstKept > 0 { counts.removeFirst(firstKept) }
        }
    }
}
