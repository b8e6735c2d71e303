/// Something that happened which the manager's loop must handle.
enum ActionEvent: Sendable {
    /// A commit (every one, in order, from ``Database/changes``).
    case commit(Changeset)
    /// The timer for the next due date fired.
    case timer
    /// The reachability changed.
    case reachability(Bool)
    /// The suspend count went back to zero.
    case resumed
    /// The work of an item returned.
    case finished(ActionItemID)
    /// Someone waits for the manager to be idle.
    case idle(ActionIdleWaiter)
    /// ``ActionManager/stop()`` or the manager's release.
    case stop
    /// The database closed: ``Database/changes`` ended.
    case databaseClosed
}

/// The manager loop's inbox: events posted from any thread, taken in batches by the one loop,
/// so a burst of events costs one pass.
final class ActionMailbox: Sendable {
    private struct State {
        var events: [ActionEvent] = []
        var waiter: CheckedContinuation<[ActionEvent], Never>?
        var isClosed = false
    }

    private let state = Locked(State())

    /// Adds `event`; once the mailbox is closed an idle waiter is let go at once and the rest is dropped.
    func post(_ event: ActionEvent) {
        enum Outcome {
            case queued
            case wake(CheckedContinuation<[ActionEvent], Never>, [ActionEvent])
            case refused
        }
        let outcome = state.withLock { state -> Outcome in
            guard !state.isClosed else { return .refused }
            guard let waiter = state.waiter else {
                state.events.append(event)
                return .queued
            }
            state.waiter = nil
            return .wake(waiter, [event])
        }
        switch outcome {
        case .queued: break
        case .wake(let waiter, let events): waiter.resume(returning: events)
        case .refused:
            if case .idle(let waiter) = event { waiter.release() }
        }
    }

    /// Whether no event waits to be taken.
    var isEmpty: Bool { state.withLock { $0.events.isEmpty } }

    /// The events posted since the last call, waiting for one when there are none.
    func next() async -> [ActionEvent] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[ActionEvent], Never>) in
            let ready = state.withLock { state -> [ActionEvent]? in
                guard state.events.isEmpty else {
                    defer { state.events = [] }
                    return state.events
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Refuses every later event and returns those not taken yet.
    func close() -> [ActionEvent] {
        state.withLock { state in
            state.isClosed = true
            defer { state.events = [] }
            return state.events
        }
    }
}

/// One caller of ``ActionManager/idle()``: let go once, by the manager or by the caller's
/// cancellation, whichever comes first.
final class ActionIdleWaiter: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<Void, Never>)
        case released
    }

    private let state = Locked(State.pending)

    /// Waits until ``release()``; returns at once when it already happened.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> Bool in
                guard case .pending = state else { return true }
                state = .waiting(continuation)
                return false
            }
            if released { continuation.resume() }
        }
    }

    /// Lets the waiter go; later calls do nothing.
    func release() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .released }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        continuation?.resume()
    }
}
