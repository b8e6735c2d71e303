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
                receiver = state.delegate.map(Receiver.delegate) ?? state.stream.map { .stream($0.continuation) }
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
        case stream(AsyncStream<CloudOperation>.Continuation)
    }

    private func deliver(_ operations: [CloudOperation], to receiver: Receiver) {
        switch receiver {
        case .delegate(let delegate):
            for operation in operations {
                DispatchQueue.global().async { delegate.startOperation(operation, in: self) }
            }
        case .stream(let continuation):
            var undelivered: [UUID] = []
            for operation in operations {
                if case .terminated = continuation.yield(operation) { undelivered.append(operation.uuid) }
            }
            // The iteration ended meanwhile: those never reached anyone, so they are pending again.
            if !undelivered.isEmpty {
                state.withLock { state in
                    for uuid in undelivered { state.active.remove(uuid) }
                }
            }
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
