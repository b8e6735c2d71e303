import Dispatch
import Foundation

/// Posts ``Database/modifiedNotification`` for every commit, in commit order, on the database's
/// notification queue, waking that queue at most about once a millisecond.
///
/// Handing each commit to the queue on its own wakes a sleeping thread per commit, which costs a
/// small write transaction about as much as encrypting a page (BENCHMARKS.md, W2). So the first commit after a quiet millisecond is posted at once, and
/// the commits of a burst after it are posted together when that millisecond is over. Completion
/// callbacks go through ``deliver(on:_:)``, which posts what is waiting first, so a completion
/// still runs after its commit's notification.
final class CommitNotifier: Sendable {
    private struct Pending {
        var changesets: [Changeset] = []
        /// A block that posts `changesets` is queued or timed.
        var isScheduled = false
        var lastDelivery = DispatchTime(uptimeNanoseconds: 0)
    }

    /// The shortest time between two wake-ups of the queue for notifications alone.
    static let interval = DispatchTimeInterval.milliseconds(1)

    /// The database's notification queue: notifications and default completion callbacks run here.
    let queue: DispatchQueue
    private let pending = Locked(Pending())

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Queues the notification of `changeset`, posted with `database` as its object.
    func post(_ changeset: Changeset, from database: Database) {
        let due = pending.withLock { pending -> DispatchTime? in
            pending.changesets.append(changeset)
            guard !pending.isScheduled else { return nil }
            pending.isScheduled = true
            return pending.lastDelivery + Self.interval
        }
        guard let due else { return }
        if due <= .now() {
            queue.async(execute: postingBlock(from: database))
        } else {
            queue.asyncAfter(deadline: due, execute: postingBlock(from: database))
        }
    }

    /// Runs `block` on `queue` (default: the notification queue) after every notification queued
    /// so far has been posted there.
    func deliver(on queue: DispatchQueue?, _ block: @escaping @Sendable () -> Void, from database: Database) {
        if pending.withLock({ !$0.changesets.isEmpty }) {
            self.queue.async(execute: postingBlock(from: database))
        }
        (queue ?? self.queue).async(execute: block)
    }

    /// A block that posts every waiting notification.
    ///
    /// Each such block takes the list when it runs, on the serial queue, so however many are
    /// queued or timed, commit order holds.
    private func postingBlock(from database: Database) -> @Sendable () -> Void {
        // Weak: a queued notification must not keep a closed database (and its file claim) alive.
        { [weak database] in
            let batch = self.pending.withLock { pending -> [Changeset] in
                pending.isScheduled = false
                pending.lastDelivery = .now()
                let batch = pending.changesets
                // New storage of the same capacity, allocated here rather than by the committing
                // thread's next append.
                pending.changesets.removeAll(keepingCapacity: true)
                return batch
            }
            for changeset in batch {
                NotificationCenter.default.post(
                    name: Database.modifiedNotification, object: database,
                    userInfo: [Database.changesetKey: changeset])
            }
        }
    }
}
