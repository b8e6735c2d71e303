import Dispatch
import Foundation

/// Posts ``Database/modifiedNotification`` for every commit, in commit order, on the database's
/// notification queue, waking that queue at most about once a millisecond.
///
/// Handing each commit to the queue on its own wakes a sleeping thread per commit, which costs a
/// small write transaction about as much as encrypting a page (BENCHMARKS.md, W2). So the first
/// commit after a quiet millisecond is posted at once, and the commits of a burst after it are
/// posted together when that millisecond is over. Completion callbacks go through
/// ``deliver(on:_:)``, which posts what is waiting first, so a completion still runs after
/// its commit's notification.
///
/// The queue is woken through two dispatch sources made once, a user-data source for "now" and a
/// timer for "when the millisecond is over": `async` and `asyncAfter` copied a block and
/// allocated per scheduled post, and `asyncAfter` set up a timer of its own each time.
final class CommitNotifier: Sendable {
    private struct Pending {
        var changesets: [Changeset] = []
        /// `wake` was signalled or `timer` armed, and the batch has not been taken since.
        var isScheduled = false
        var lastDelivery = DispatchTime(uptimeNanoseconds: 0)
        /// The notifications' object, held weakly.
        ///
        /// Waiting notifications must not keep a closed database (and its file claim) alive.
        weak var database: Database?
    }

    /// The shortest time between two wake-ups of the queue for notifications alone.
    static let interval = DispatchTimeInterval.milliseconds(1)

    /// The database's notification queue: notifications and default completion callbacks run here.
    let queue: DispatchQueue
    private let pending = Locked(Pending())
    // Dispatch sources are safe to signal, arm and cancel from any thread. Their handlers keep
    // the notifier until `finish()` cancels them.
    private nonisolated(unsafe) let wake: any DispatchSourceUserDataOr
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    init(queue: DispatchQueue) {
        self.queue = queue
        wake = DispatchSource.makeUserDataOrSource(queue: queue)
        timer = DispatchSource.makeTimerSource(queue: queue)
        wake.setEventHandler { self.postWaiting() }
        timer.setEventHandler { self.postWaiting() }
        wake.activate()
        timer.activate()
    }

    /// Makes `database` the object of the notifications; once, when the database is set up.
    func attach(_ database: Database) {
        pending.withLock { $0.database = database }
    }

    /// Queues the notification of `changeset`.
    func post(_ changeset: Changeset) {
        let due = pending.withLock { pending -> DispatchTime? in
            pending.changesets.append(changeset)
            guard !pending.isScheduled else { return nil }
            pending.isScheduled = true
            return pending.lastDelivery + Self.interval
        }
        guard let due else { return }
        if due <= .now() {
            wake.or(data: 1)
        } else {
            timer.schedule(deadline: due)
        }
    }

    /// Runs `block` on `queue` (default: the notification queue) after every notification queued
    /// so far has been posted there.
    func deliver(on queue: DispatchQueue?, _ block: @escaping @Sendable () -> Void) {
        if pending.withLock({ !$0.changesets.isEmpty }) { self.queue.async { self.postWaiting() } }
        (queue ?? self.queue).async(execute: block)
    }

    /// Posts what is waiting, then stops the sources, letting go of the notifier; for the
    /// database's deinitializer (a notifier that outlives its database still posts what its
    /// commits queued).
    func finish() {
        queue.async {
            self.postWaiting()
            self.wake.cancel()
            self.timer.cancel()
        }
    }

    /// Posts every waiting notification, on the serial queue: each run takes the whole list, so
    /// however often the queue is woken, commit order holds.
    private func postWaiting() {
        let (batch, database) = pending.withLock { pending -> ([Changeset], Database?) in
            pending.isScheduled = false
            pending.lastDelivery = .now()
            let batch = pending.changesets
            // New storage of the same capacity, allocated here rather than by the committing
            // thread's next append.
            pending.changesets.removeAll(keepingCapacity: true)
            return (batch, pending.database)
        }
        for changeset in batch {
            NotificationCenter.default.post(
                name: Database.modifiedNotification, object: database,
                userInfo: [Database.changesetKey: changeset])
        }
    }
}
