import Foundation

/// Runs the work that rows ask for at a time — refresh a credential before it expires, retry a
/// failed upload, delete an expired cache entry — from an ``ActionSchedule`` kept in the
/// encrypted file (YapDatabase's `YapDatabaseActionManager`).
///
/// ```swift
/// try database.register(ActionSchedule(allowedCollections: .only(["credentials"])), withName: "actions")
/// let manager = try ActionManager(database: database, schedule: "actions")
/// // …
/// await manager.stop()
/// ```
///
/// The manager runs each item of each row when its date comes, in a task of its own, and again
/// after the item's retry timeout for as long as the row still returns it; items that need the
/// network wait while ``NetworkReachability`` reports none. It never runs an item while an
/// earlier run of it is still going, and drops the items of rows that are removed or stop
/// returning them. Runs are not remembered in the file: after a restart, a due item whose row
/// still returns it runs again.
///
/// The manager reads the schedule on a connection of its own after every commit that changes it,
/// and keeps in memory only the rows due so far: a schedule of many future items costs neither
/// memory nor time until they fall due. Keep the manager while it should run; releasing it or
/// calling ``stop()`` ends it, and so does closing the database. Only one manager may run a
/// schedule at a time.
public final class ActionManager: Sendable {
    /// The registered name of the schedule the manager runs.
    public let name: String
    private let mailbox: ActionMailbox
    private let suspension: Locked<Int>
    private let loop: Task<Void, Never>

    /// Starts running the ``ActionSchedule`` registered as `schedule`.
    ///
    /// - Parameters:
    ///   - database: The database the schedule is registered with.
    ///   - schedule: The schedule's registered name.
    ///   - scheduler: The clock and timers (a ``ManualActionScheduler`` in tests).
    ///   - reachability: Tells whether the network can be reached (by default, always).
    ///   - suspended: Whether to start suspended (a suspend count of 1), for an app that must get
    ///     ready before any work runs; ``resume()`` starts it.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when no ``ActionSchedule`` is registered
    ///   as `schedule`, `.misuse` when another manager runs it, and errors opening a connection
    ///   (`.closed` once the database is closed).
    public init(
        database: Database, schedule: String, scheduler: any ActionScheduler = .system,
        reachability: any NetworkReachability = .always, suspended: Bool = false
    ) throws {
        guard let configuration = database.registeredExtension(schedule) as? ActionSchedule else {
            throw DatabaseError(.extensionFailure, "no ActionSchedule is registered as \"\(schedule)\"")
        }
        let claim = ActionManagerClaim(database: ObjectIdentifier(database), schedule: schedule)
        guard ActionManagerClaim.claims.withLock({ $0.insert(claim).inserted }) else {
            throw DatabaseError(.misuse, "an ActionManager already runs the schedule \"\(schedule)\"")
        }
        let connection: Connection
        do {
            connection = try database.newConnection()
        } catch {
            _ = ActionManagerClaim.claims.withLock { $0.remove(claim) }
            throw error
        }
        let mailbox = ActionMailbox()
        let suspension = Locked(suspended ? 1 : 0)
        // Subscribed before the first read, so that no commit after it goes unseen.
        let changes = database.changes
        let forwarder = Task.detached {
            for await changeset in changes { mailbox.post(.commit(changeset)) }
            mailbox.post(.databaseClosed)
        }
        let observation = reachability.observe { mailbox.post(.reachability($0)) }
        let isReachable = reachability.isReachable
        self.name = schedule
        self.mailbox = mailbox
        self.suspension = suspension
        loop = Task.detached {
            let engine = ActionEngine(
                name: schedule, schedule: configuration, database: database, connection: connection,
                scheduler: scheduler, isReachable: isReachable, mailbox: mailbox, suspendCount: suspension)
            await engine.run()
            observation.cancel()
            forwarder.cancel()
            _ = ActionManagerClaim.claims.withLock { $0.remove(claim) }
        }
    }

    deinit {
        mailbox.post(.stop)
    }

    /// Stops the manager: no item starts any more, the running work is cancelled (cooperatively)
    /// and waited for.
    ///
    /// The schedule stays registered and in the file. Do not call it from an item's work, which
    /// it would wait for.
    public func stop() async {
        mailbox.post(.stop)
        await loop.value
    }

    /// Returns once the manager has taken into account every commit made before the call, handled
    /// what fell due, and no work is running.
    ///
    /// Work started meanwhile is waited for too, and the commits it makes. Meant for tests and
    /// orderly shutdowns: with a ``ManualActionScheduler``, `clock.advance(by:)` then
    /// `await manager.idle()` leaves everything due at the new time run. Do not call it from an
    /// item's work, which it would wait for; it returns at once once the manager stopped, and
    /// when the calling task is cancelled (so a test can bound the wait).
    public func idle() async {
        let waiter = ActionIdleWaiter()
        mailbox.post(.idle(waiter))
        await withTaskCancellationHandler {
            await waiter.wait()
        } onCancel: {
            waiter.release()
        }
    }

    /// How many ``suspend()`` calls ``resume()`` has not matched yet; items start only at zero.
    public var suspendCount: Int { suspension.withLock { $0 } }

    /// Whether the manager is suspended (``suspendCount`` is not zero).
    public var isSuspended: Bool { suspendCount > 0 }

    /// Suspends the manager: no item starts until every suspend is matched by a ``resume()``.
    ///
    /// Work already running goes on. The manager keeps following commits meanwhile.
    /// - Returns: The new suspend count.
    @discardableResult
    public func suspend() -> Int {
        suspend(count: 1)
    }

    /// Suspends the manager `count` times over, as many ``suspend()`` calls.
    /// - Returns: The new suspend count.
    @discardableResult
    public func suspend(count: Int) -> Int {
        suspension.withLock { suspended in
            suspended += max(0, count)
            return suspended
        }
    }

    /// Matches one ``suspend()``; at zero the manager starts what fell due meanwhile.
    ///
    /// A resume without a suspend to match does nothing.
    /// - Returns: The new suspend count.
    @discardableResult
    public func resume() -> Int {
        let (count, resumed) = suspension.withLock { suspended -> (Int, Bool) in
            guard suspended > 0 else { return (0, false) }
            suspended -= 1
            return (suspended, suspended == 0)
        }
        if resumed { mailbox.post(.resumed) }
        return count
    }
}

/// One schedule of one database that a manager runs, so that a second manager is refused.
struct ActionManagerClaim: Hashable, Sendable {
    let database: ObjectIdentifier
    let schedule: String

    static let claims = Locked(Set<ActionManagerClaim>())
}
