public import Foundation

/// Stops something an ``ActionScheduler`` or a ``NetworkReachability`` started: a timer, an observation.
public final class ActionCancellable: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// A cancellable that runs `cancel` the first time ``cancel()`` is called.
    public init(_ cancel: @escaping @Sendable () -> Void) {
        onCancel = Locked(cancel)
    }

    /// Cancels; later calls do nothing.
    public func cancel() {
        let body = onCancel.withLock { body in
            defer { body = nil }
            return body
        }
        body?()
    }
}

/// The clock and timer an ``ActionManager`` runs items by, so that tests can move time by hand
/// (``ManualActionScheduler``) instead of sleeping.
public protocol ActionScheduler: Sendable {
    /// The current time.
    var now: Date { get }

    /// Calls `body` once, at `date` or as soon as possible after it, unless cancelled first.
    ///
    /// A date already past calls it as soon as possible. `body` may run on any thread and must
    /// not block.
    func schedule(at date: Date, _ body: @escaping @Sendable () -> Void) -> ActionCancellable
}

extension ActionScheduler where Self == SystemActionScheduler {
    /// The system clock.
    public static var system: SystemActionScheduler { SystemActionScheduler() }
}

/// The system clock: `Date()` for the time, a sleeping task for each timer.
///
/// A timer sleeps for the interval between its scheduling and its date; should the wall clock
/// jump meanwhile, the manager still finds what is due by ``now`` whenever it next looks.
public struct SystemActionScheduler: ActionScheduler {
    /// The system clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// Calls `body` after a task has slept until `date`.
    public func schedule(at date: Date, _ body: @escaping @Sendable () -> Void) -> ActionCancellable {
        let delay = max(0, date.timeIntervalSinceNow)
        let task = Task.detached {
            // A cancelled sleep throws: the timer was cancelled, so `body` must not run.
            try await Task.sleep(for: .seconds(delay))
            body()
        }
        return ActionCancellable { task.cancel() }
    }
}

/// A clock that moves only when told to, for tests: timers fire inside ``advance(to:)``.
///
/// ```swift
/// let clock = ManualActionScheduler()
/// let manager = try ActionManager(database: database, schedule: "actions", scheduler: clock)
/// clock.advance(by: 60)
/// await manager.idle()
/// ```
public final class ManualActionScheduler: ActionScheduler {
    private struct Timer {
        let date: Date
        let body: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var timers: [UInt64: Timer] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    /// A clock standing at `now`.
    public init(now: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        state = Locked(State(now: now))
    }

    /// The clock's time.
    public var now: Date { state.withLock { $0.now } }

    /// The dates of the timers not fired or cancelled yet, earliest first.
    public var scheduledDates: [Date] {
        state.withLock { $0.timers.values.map(\.date) }.sorted()
    }

    /// Remembers `body` until the clock reaches `date`; a date already reached calls it at once.
    public func schedule(at date: Date, _ body: @escaping @Sendable () -> Void) -> ActionCancellable {
        let id = state.withLock { state -> UInt64? in
            guard date > state.now else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.timers[id] = Timer(date: date, body: body)
            return id
        }
        guard let id else {
            body()
            return ActionCancellable {}
        }
        return ActionCancellable { [state] in _ = state.withLock { $0.timers.removeValue(forKey: id) } }
    }

    /// Moves the clock forward by `interval` seconds, firing the timers it reaches.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(interval))
    }

    /// Moves the clock to `date` (never backwards), firing the timers it reaches, earliest first.
    public func advance(to date: Date) {
        let due = state.withLock { state -> [Timer] in
            state.now = max(state.now, date)
            let now = state.now
            let ids = state.timers.filter { $0.value.date <= now }.map(\.key)
            return ids.compactMap { state.timers.removeValue(forKey: $0) }
        }
        // Outside the lock: a timer's body may schedule another.
        for timer in due.sorted(by: { $0.date < $1.date }) { timer.body() }
    }
}
