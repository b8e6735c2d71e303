import Foundation

/// How a pipeline follows commits and hands out operations.
extension CloudCorePipeline {
    var runtime: CloudCoreRuntime? {
        state.withLock { $0.runtime }
    }

    /// Joins `runtime`; false when the pipeline already belongs to another extension.
    func attach(to runtime: CloudCoreRuntime) -> Bool {
        state.withLock { state in
            if let owner = state.runtime, owner !== runtime { return false }
            state.runtime = runtime
            return true
        }
    }

    func restore(_ graphs: [CloudCoreGraph]) {
        state.withLock { $0.restore(graphs) }
        pump()
    }

    func apply(_ change: CloudCoreCommit.PipelineChange, graphID: UInt64?) -> CloudCoreQueueChange? {
        let summary = state.withLock { $0.apply(change, graphID: graphID, pipeline: name) }
        if summary != nil { pump() }
        return summary
    }

    /// Starts what may start, updates the active status and the hold timer.
    func pump() {
        guard let runtime else { return }
        let suspended = runtime.isSuspended
        let now = runtime.scheduler.now
        let algorithm = algorithm
        let (started, receiver, activity, wake) = state.withLock {
            state -> ([CloudOperation], Receiver?, Bool?, Date?) in
            var started: [CloudOperation] = []
            var receiver: Receiver?
            if !suspended, state.hasReceiver {
                started = state.takeStartable(algorithm: algorithm, now: now)
                if let delegate = state.delegate {
                    receiver = .delegate(delegate)
                } else {
                    receiver = .waiters(Array(state.waiters.prefix(started.count).map(\.continuation)))
                    state.waiters.removeFirst(min(started.count, state.waiters.count))
                }
            }
            let activity = state.updateActivity(suspended: suspended)
            var wake: Date?
            if !suspended, state.hasReceiver, let next = state.nextHoldEnd(after: now), next != state.timerDate {
                state.timer?.cancel()
                state.timer = nil
                state.timerDate = next
                wake = next
            }
            return (started, receiver, activity, wake)
        }
        if let activity {
            runtime.events.emit(.activeStatusChanged(pipeline: name, isActive: activity), objects: [self])
        }
        if let receiver, !started.isEmpty { deliver(started, to: receiver) }
        if let wake { scheduleWake(at: wake, runtime: runtime) }
    }

    private enum Receiver {
        case delegate(any CloudCorePipelineDelegate)
        case waiters([CheckedContinuation<CloudOperation?, Never>])
    }

    private func deliver(_ operations: [CloudOperation], to receiver: Receiver) {
        switch receiver {
        case .delegate(let delegate):
            for operation in operations {
                DispatchQueue.global().async { delegate.startOperation(operation, in: self) }
            }
        case .waiters(let waiters):
            for (waiter, operation) in zip(waiters, operations) { waiter.resume(returning: operation) }
        }
    }

    /// The next operation the pipeline starts, for an iteration of ``startedOperations()``.
    func nextStarted() async -> CloudOperation? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CloudOperation?, Never>) in
                let cancelled = state.withLock { state in
                    if state.cancelledWaiters.remove(id) != nil { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelled { continuation.resume(returning: nil) } else { pump() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<CloudOperation?, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledWaiters.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    private func wake(from date: Date) {
        state.withLock { state in
            if state.timerDate == date {
                state.timer = nil
                state.timerDate = nil
            }
        }
        pump()
    }

    private func scheduleWake(at date: Date, runtime: CloudCoreRuntime) {
        let timer = runtime.scheduler.schedule(at: date) { [weak self] in
            guard let self else { return }
            // Off the scheduler's thread: a manual clock fires timers inside `advance`.
            DispatchQueue.global().async { self.wake(from: date) }
        }
        state.withLock { state in
            if state.timerDate == date { state.timer = timer } else { timer.cancel() }
        }
    }
}
