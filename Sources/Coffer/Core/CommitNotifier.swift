import Dispatch
import Foundation

/// Posts ``Database/modifiedNotification`` for every commit, in commit order, on the database's
/// notification queue, waking that queue at most about once a millisecond.
///
/// Handing each commit to the queue on its own wakes a sleeping thread per commit, which costs a
/// small write transaction about as much as encrypting a page (BENCHMARKS.md, W2). So the first
/// commit after a quiet millisecond is posted at once, and the commits of a burst after it are
/// posted together when that millisecond is over. While commits keep coming, the queue arms the
/// next millisecond's timer itself after each batch it posts, so the committing threads of a
/// burst only append (arming or signalling a source costs a commit several hundred instructions);
/// the first tick that finds nothing lets the timer rest. Completion callbacks go through
/// ``deliver(on:_:)``, which posts what is waiting first, so a completion still runs after
/// its commit's notification.
///
/// The queue is woken through two dispatch sources made once, a user-data source for "now" and a
/// timer for "when the millisecond is over": `async` and `asyncAfter` copied a block and
/// allocated per scheduled post, and `asyncAfter` set up a timer of its own each time.
final class CommitNotifier: Sendable {
    private struct Pending {
        var changesets: [Changeset] = []
        /// `wake` was signalled or `timer` armed, and the batch has not been taken since (or the
        /// queue re-armed `timer` after a batch): a commit only needs to append.
        var isScheduled = false
        /// How many commits signalled `wake` or armed `timer` themselves (for tests).
        var scheduledByCommits = 0
        /// When notifications were last posted; nil before the first.
        ///
        /// Not a zero `DispatchTime`: dispatch reads a raw value of 0 as "now", so the interval
        /// after it would have been counted from the first commit and delayed its notification.
        var lastDelivery: DispatchTime?
        /// The notifications' object, held weakly.
        ///
        /// Waiting notifications must not keep a closed database (and its file claim) alive.
        weak var database: Database?
    }

    /// The default shortest time between two wake-ups of the queue for notifications alone.
    static let interval = DispatchTimeInterval.milliseconds(1)

    /// The database's notification queue: notifications and default completion callbacks run here.
    let queue: DispatchQueue
    private let pending = Locked(Pending())
    // Dispatch sources are safe to signal, arm and cancel from any thread. Their handlers keep
    // the notifier until `finish()` cancels them.
    private nonisolated(unsafe) let wake: any DispatchSourceUserDataOr
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    /// The shortest time between two wake-ups of the queue for notifications alone.
    let interval: DispatchTimeInterval

    init(queue: DispatchQueue, interval: DispatchTimeInterval = CommitNotifier.interval) {
        self.queue = queue
        self.interval = interval
        wake = DispatchSource.makeUserDataOrSource(queue: queue)
        timer = DispatchSource.makeTimerSource(queue: queue)
        wake.setEventHandler { self.postWaiting(onTick: false) }
        timer.setEventHandler { self.postWaiting(onTick: true) }
        wake.activate()
        timer.activate()
    }

    /// Makes `database` the object of the notifications; once, when the database is set up.
    func attach(_ database: Database) {
        pending.withLock { $0.database = database }
    }

    /// What a commit does to have its notification posted.
    private enum Wakeup {
        /// Nothing: a wake-up or tick is on its way already.
        case none
        /// Wake the queue now, or when the interval after the last posting ends if that is later.
        case due(DispatchTime?)
    }

    /// Queues the notification of `changeset`.
    func post(_ changeset: Changeset) {
        let wakeup = pending.withLock { pending -> Wakeup in
            pending.changesets.append(changeset)
            guard !pending.isScheduled else { return .none }
            pending.isScheduled = true
            pending.scheduledByCommits += 1
            return .due(pending.lastDelivery.map { $0 + interval })
        }
        guard case .due(let due) = wakeup else { return }
        if let due, due > .now() {
            timer.schedule(deadline: due)
        } else {
            wake.or(data: 1)
        }
    }

    /// Runs `block` on `queue` (default: the notification queue) after every notification queued
    /// so far has been posted there.
    func deliver(on queue: DispatchQueue?, _ block: @escaping @Sendable () -> Void) {
        if pending.withLock({ !$0.changesets.isEmpty }) { self.queue.async { self.postWaiting(onTick: false) } }
        (queue ?? self.queue).async(execute: block)
    }

    /// Posts what is waiting, then stops the sources, letting go of the notifier; for the
    /// database's deinitializer (a notifier that outlives its database still posts what its
    /// commits queued).
    func finish() {
        queue.async {
            self.postWaiting(onTick: false)
            self.wake.cancel()
            self.timer.cancel()
        }
    }

    /// Posts every waiting notification, on the serial queue: each run takes the whole list, so
    /// however often the queue is woken, commit order holds.
    ///
    /// A tick that finds commits waiting arms the next tick and leaves the batch scheduled, so
    /// the commits arriving meanwhile only append; a tick that finds none, or a wake-up, leaves
    /// the next commit to schedule one.
    private func postWaiting(onTick: Bool) {
        let (batch, database, rearm) = pending.withLock { pending -> ([Changeset], Database?, Bool) in
            let rearm = onTick && !pending.changesets.isEmpty
            pending.isScheduled = rearm
            // A run that posts nothing leaves the interval counted from the last posting, so the
            // first commit after a flow's idle tick is posted at once.
            if !pending.changesets.isEmpty { pending.lastDelivery = .now() }
            let batch = pending.changesets
            // New storage of the same capacity, allocated here rather than by the committing
            // thread's next append.
            pending.changesets.removeAll(keepingCapacity: true)
            return (batch, pending.database, rearm)
        }
        if rearm { timer.schedule(deadline: .now() + interval) }
        for changeset in batch {
            NotificationCenter.default.post(
                name: Database.modifiedNotification, object: database,
                userInfo: [Database.changesetKey: changeset])
        }
    }

    /// Whether a commit now would only append (a wake-up or tick is on its way), and how many
    /// commits signalled or armed a source themselves so far; for tests.
    var schedule: (isScheduled: Bool, byCommits: Int) {
        pending.withLock { ($0.isScheduled, $0.scheduledByCommits) }
    }
}
