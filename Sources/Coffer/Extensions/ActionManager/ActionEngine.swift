import Foundation
import Logging

/// What one read of the schedule found.
struct ActionScheduleRead: Sendable {
    /// The items of each row asked for (empty: the row is gone or returns none).
    var rows: [CollectionKey: [ActionItem]] = [:]
    /// The rows of the schedule whose first item falls in the range read, in schedule order.
    var loaded: [(row: CollectionKey, items: [ActionItem])] = []
    /// The first date after the range read, if the schedule goes on past it.
    var nextDate: Date?
    /// The snapshot read at.
    var snapshot: UInt64 = 0

    /// Reads the items of `keys`, and the rows of schedule `name` whose first item's date is
    /// after `lower` (any, when nil) and not after `upper`.
    init(
        _ tx: ReadTransaction, schedule name: String, items handler: ActionItemsHandler,
        allowedCollections: AllowList<String>, keys: Set<CollectionKey>, after lower: Date?, through upper: Date
    ) throws {
        snapshot = tx.snapshot
        for key in keys {
            rows[key] =
                allowedCollections.isAllowed(key.collection)
                ? try Self.items(of: key, by: handler, in: tx) : []
        }
        let view = try tx.extension(name, as: ViewTransaction.self)
        let group = ActionSchedule.scheduleGroup
        let count = try view.numberOfItems(inGroup: group)
        var start = 0
        if let lower {
            // The first row due after `lower`: the schedule is sorted by first date.
            var high = count
            while start < high {
                let middle = (start + high) / 2
                let first = try view.row(at: middle, inGroup: group).flatMap { row in
                    try ActionSchedule.items(
                        of: row.collectionKey, object: row.object, metadata: row.metadata, by: handler, in: tx
                    ).first?.date
                }
                if let first, first > lower { high = middle } else { start = middle + 1 }
            }
        }
        guard start < count else { return }
        var loaded: [(row: CollectionKey, items: [ActionItem])] = []
        var nextDate: Date?
        try view.enumerateRows(
            inGroup: group, from: start, readingObject: handler.kind.readsObject,
            readingMetadata: handler.kind.readsMetadata
        ) { row, _, stop in
            let items = try ActionSchedule.items(
                of: row.collectionKey, object: row.object, metadata: row.metadata, by: handler, in: tx)
            guard let first = items.first else { return }
            guard first.date <= upper else {
                nextDate = first.date
                stop = true
                return
            }
            loaded.append((row.collectionKey, items))
        }
        self.loaded = loaded
        self.nextDate = nextDate
    }

    /// The items of one row, read now (none when it is gone).
    static func items(of key: CollectionKey, by handler: ActionItemsHandler, in tx: ReadTransaction) throws
        -> [ActionItem]
    {
        guard let object = try tx.object(forKey: key.key, inCollection: key.collection) else { return [] }
        let metadata = LazyValue(loader: { try tx.metadata(forKey: key.key, inCollection: key.collection) })
        return try ActionSchedule.items(of: key, object: LazyValue(object), metadata: metadata, by: handler, in: tx)
    }
}

/// The loop behind an ``ActionManager``: one task takes the mailbox's events in batches and, after
/// each batch that may matter, makes one pass: reads what changed, runs what is due, arms the
/// timer for what comes next.
///
/// It keeps in memory the rows of the schedule due up to ``horizon`` (the latest time a pass
/// looked at), with what it knows of their items' runs; rows due later stay in the file until
/// time reaches them, so a large schedule of future items costs memory only when due. Every
/// item it starts was read in the same pass, at the newest snapshot, so an item whose row was
/// removed or changed is never started from what the manager remembered.
final class ActionEngine {
    let name: String
    let schedule: ActionSchedule
    let database: Database
    let connection: Connection
    let scheduler: any ActionScheduler
    let mailbox: ActionMailbox
    let suspendCount: Locked<Int>
    let logger: Logger

    /// Rows due up to the horizon, with their items in schedule order.
    private var rows: [CollectionKey: [TrackedAction]] = [:]
    /// Every row of the schedule whose first item is due by this date is in ``rows``; nil
    /// when the schedule must be read again from its start.
    private var horizon: Date?
    private var timeline = ActionTimeline()
    private var running: [ActionItemID: Task<Void, Never>] = [:]
    private var waitingForNetwork: Set<ActionItemID> = []
    /// Rows to look at again in the next pass that may run items (a run ended there).
    private var recheck: Set<CollectionKey> = []
    private var isReachable: Bool
    /// Every commit up to this snapshot has been taken into account.
    private var processedSnapshot: UInt64 = 0
    private var idleWaiters: [ActionIdleWaiter] = []
    private var timer: ActionCancellable?
    private var timerDate: Date?

    init(
        name: String, schedule: ActionSchedule, database: Database, connection: Connection,
        scheduler: any ActionScheduler, isReachable: Bool, mailbox: ActionMailbox, suspendCount: Locked<Int>
    ) {
        self.name = name
        self.schedule = schedule
        self.database = database
        self.connection = connection
        self.scheduler = scheduler
        self.isReachable = isReachable
        self.mailbox = mailbox
        self.suspendCount = suspendCount
        self.logger = database.logger
    }

    /// Runs until stopped or the database closes.
    func run() async {
        await pass(refreshing: [])
        loop: while true {
            var refresh: Set<CollectionKey> = []
            var needsPass = false
            var stops = false
            // The whole batch is looked at even when it stops the loop: an idle waiter after the
            // stop must still be let go.
            for event in await mailbox.next() {
                switch event {
                case .commit(let changeset):
                    processedSnapshot = max(processedSnapshot, changeset.snapshot)
                    if changeset.unregisteredExtensions.contains(name) {
                        logger.warning(
                            "Coffer: the action schedule was unregistered; its manager stops",
                            metadata: ["extension": "\(name)"])
                        stops = true
                    }
                    needsPass = note(changeset, refreshing: &refresh) || needsPass
                case .timer:
                    timer = nil
                    timerDate = nil
                    needsPass = true
                case .reachability(let reachable):
                    isReachable = reachable
                    if reachable { recheck.formUnion(waitingForNetwork.map(\.row)) }
                    needsPass = true
                case .resumed:
                    needsPass = true
                case .finished(let id):
                    running[id] = nil
                    recheck.insert(id.row)
                    needsPass = true
                case .idle(let waiter):
                    idleWaiters.append(waiter)
                case .stop, .databaseClosed:
                    stops = true
                }
            }
            if stops { break loop }
            if needsPass { await pass(refreshing: refresh) }
            letIdleWaitersGo()
        }
        await shutDown()
    }

    /// Adds the rows a commit changed in the schedule to `refresh`; whether it changed the schedule.
    private func note(_ changeset: Changeset, refreshing refresh: inout Set<CollectionKey>) -> Bool {
        let records = changeset.viewChangeRecords(inView: name)
        for record in records {
            switch record {
            case .insertRow(let row, _, _), .deleteRow(let row, _, _), .updateRow(let row, _, _, _):
                refresh.insert(row)
            case .reset, .clearGroup:
                horizon = nil
            case .insertGroup, .deleteGroup:
                break
            }
        }
        return !records.isEmpty
    }

    /// Reads what changed and what fell due, starts what is due, and arms the timer.
    private func pass(refreshing refresh: Set<CollectionKey>) async {
        let suspended = suspendCount.withLock { $0 } > 0
        let now = scheduler.now
        let reloading = horizon == nil
        var keys = refresh
        // A reload reads every remembered row again: what is gone must go.
        if reloading { keys.formUnion(rows.keys) }
        var candidates: Set<ActionItemID> = []
        if !suspended {
            candidates = takeDue(at: now)
            keys.formUnion(candidates.map(\.row))
            keys.formUnion(recheck)
        }
        let lower = horizon
        let (name, handler, allowed) = (name, schedule.items, schedule.allowedCollections)
        let read: ActionScheduleRead
        do {
            read = try await connection.read { [keys] tx in
                try ActionScheduleRead(
                    tx, schedule: name, items: handler, allowedCollections: allowed, keys: keys, after: lower,
                    through: now)
            }
        } catch {
            logReadFailure(error)
            // Start over from the file at the next pass, and make sure there is one.
            horizon = nil
            for id in candidates { timeline.insert(id, at: now) }
            arm(at: now.addingTimeInterval(Self.retryAfterFailedRead))
            return
        }
        if reloading { processedSnapshot = max(processedSnapshot, read.snapshot) }
        horizon = max(lower ?? now, now)
        for (row, items) in read.loaded { merge(row, items) }
        for (row, items) in read.rows { merge(row, items) }
        guard !suspended else {
            disarm()
            return
        }
        candidates.formUnion(takeDue(at: now))
        for row in recheck {
            for tracked in rows[row] ?? [] {
                candidates.insert(ActionItemID(row: row, identifier: tracked.item.identifier))
            }
        }
        recheck = []
        if isReachable { candidates.formUnion(waitingForNetwork) }
        start(candidates, at: now)
        arm(at: [nextTimelineDate(), read.nextDate].compactMap { $0 }.min())
    }

    /// How long to wait before reading again after a read failed.
    static let retryAfterFailedRead: TimeInterval = 5

    /// Takes the timeline's entries due by `now`.
    private func takeDue(at now: Date) -> Set<ActionItemID> {
        var due: Set<ActionItemID> = []
        while let first = timeline.first, first.date <= now {
            _ = timeline.removeFirst()
            due.insert(first.id)
        }
        return due
    }

    /// The date of the earliest timeline entry that still stands, dropping stale ones.
    private func nextTimelineDate() -> Date? {
        while let first = timeline.first {
            if let tracked = tracked(first.id), !tracked.waitsForNetwork, tracked.dueDate == first.date {
                return first.date
            }
            _ = timeline.removeFirst()
        }
        return nil
    }

    private func tracked(_ id: ActionItemID) -> TrackedAction? {
        rows[id.row]?.first { $0.item.identifier == id.identifier }
    }

    /// Takes the items a row returns now, keeping what is known of the runs of the same items.
    private func merge(_ row: CollectionKey, _ items: [ActionItem]) {
        guard let first = items.first, let horizon, first.date <= horizon else {
            // Gone, or due past the horizon: read again when time gets there.
            if let old = rows.removeValue(forKey: row) {
                for tracked in old {
                    waitingForNetwork.remove(ActionItemID(row: row, identifier: tracked.item.identifier))
                }
            }
            return
        }
        let old = rows[row] ?? []
        var merged: [TrackedAction] = []
        merged.reserveCapacity(items.count)
        for item in items {
            let id = ActionItemID(row: row, identifier: item.identifier)
            if var known = old.first(where: { $0.item.isSameItem(as: item) }) {
                known.item = item
                merged.append(known)
            } else {
                waitingForNetwork.remove(id)
                timeline.insert(id, at: item.date)
                merged.append(TrackedAction(item: item))
            }
        }
        for tracked in old where !merged.contains(where: { $0.item.identifier == tracked.item.identifier }) {
            waitingForNetwork.remove(ActionItemID(row: row, identifier: tracked.item.identifier))
        }
        rows[row] = merged
    }

    /// Starts the items of `candidates` that are due and not running, earliest first.
    private func start(_ candidates: Set<ActionItemID>, at now: Date) {
        var due: [(date: Date, id: ActionItemID, tracked: TrackedAction)] = []
        for id in candidates {
            guard running[id] == nil, let tracked = tracked(id), let date = tracked.dueDate else { continue }
            guard date <= now || (tracked.waitsForNetwork && isReachable) else { continue }
            due.append((date, id, tracked))
        }
        due.sort { left, right in
            if left.date != right.date { return left.date < right.date }
            if left.id.row != right.id.row {
                return (left.id.row.collection, left.id.row.key) < (right.id.row.collection, right.id.row.key)
            }
            return left.id.identifier < right.id.identifier
        }
        for (_, id, tracked) in due {
            var tracked = tracked
            if tracked.item.requiresNetwork && !isReachable {
                tracked.waitsForNetwork = true
                waitingForNetwork.insert(id)
                update(id, tracked)
                continue
            }
            tracked.waitsForNetwork = false
            waitingForNetwork.remove(id)
            tracked.attempts += 1
            tracked.nextRetry = tracked.item.effectiveRetryTimeout.map { now.addingTimeInterval($0) }
            if let retry = tracked.nextRetry { timeline.insert(id, at: retry) }
            update(id, tracked)
            launch(tracked, id: id)
        }
    }

    private func update(_ id: ActionItemID, _ tracked: TrackedAction) {
        guard var list = rows[id.row], let index = list.firstIndex(where: { $0.item.identifier == id.identifier })
        else { return }
        list[index] = tracked
        rows[id.row] = list
    }

    /// Runs an item's work in a task of its own, off the loop and off the writer.
    private func launch(_ tracked: TrackedAction, id: ActionItemID) {
        let run = ActionRun(
            collection: id.row.collection, key: id.row.key, identifier: id.identifier, date: tracked.item.date,
            attempt: tracked.attempts, database: database)
        let (work, mailbox, logger, name) = (tracked.item.work, mailbox, logger, name)
        running[id] = Task.detached {
            do {
                try await work(run)
            } catch {
                // The error's type only: its text may quote what the work handled.
                logger.warning(
                    "Coffer: an action's work failed; it runs again after its retry timeout",
                    metadata: [
                        "extension": "\(name)", "collection": "\(run.collection)", "key": "\(run.key)",
                        "identifier": "\(run.identifier)", "error": "\(type(of: error))",
                    ])
            }
            mailbox.post(.finished(id))
        }
    }

    /// Arms the timer for `date` (or none), unless it is armed for it already.
    private func arm(at date: Date?) {
        guard date != timerDate else { return }
        timer?.cancel()
        timerDate = date
        timer = date.map { date in scheduler.schedule(at: date) { [mailbox] in mailbox.post(.timer) } }
    }

    private func disarm() { arm(at: nil) }

    private func logReadFailure(_ error: any Error) {
        let code = (error as? DatabaseError)?.code.rawValue ?? "\(type(of: error))"
        logger.error(
            "Coffer: the action manager could not read its schedule",
            metadata: ["extension": "\(name)", "error": "\(code)"])
    }

    /// Lets the idle waiters go when nothing is queued, running, or committed but not yet seen.
    private func letIdleWaitersGo() {
        guard !idleWaiters.isEmpty, running.isEmpty, mailbox.isEmpty, processedSnapshot >= database.snapshot
        else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.release() }
    }

    /// Stops the timer, cancels the running work and waits for it, and lets every waiter go.
    private func shutDown() async {
        disarm()
        for event in mailbox.close() {
            if case .idle(let waiter) = event { idleWaiters.append(waiter) }
        }
        let tasks = Array(running.values)
        running = [:]
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        for waiter in idleWaiters { waiter.release() }
        idleWaiters = []
    }
}
