import Foundation

/// A pipeline's memory: its graphs as of the last commit, and what runs or waits.
struct PipelineState {
    /// Graphs in commit order (ascending ids).
    var graphs: [CloudCoreGraph] = []
    /// The graph id of every queued operation.
    var graphOf: [UUID: UInt64] = [:]
    /// Operations handed out and not completed, skipped or set pending.
    var active: Set<UUID> = []
    /// Holds set at run time (retries), on top of the operations' own hold dates.
    var holds: [UUID: Date] = [:]
    var maxConcurrent: Int
    var isActive = false
    var delegate: (any CloudCorePipelineDelegate)?
    /// Iterations of ``CloudCorePipeline/startedOperations()`` waiting for an operation, in order.
    var waiters: [(id: UUID, continuation: CheckedContinuation<CloudOperation?, Never>)] = []
    /// Waiters cancelled before they were queued.
    var cancelledWaiters: Set<UUID> = []
    weak var runtime: CloudCoreRuntime?
    /// The wake-up for the earliest hold, and its date.
    var timer: ActionCancellable?
    var timerDate: Date?
    /// Whether an operation may be held: false once a search found none, so that pipelines
    /// without holds never walk the queue for them.
    var mayHaveHolds = false

    init(maxConcurrent: Int) {
        self.maxConcurrent = max(0, maxConcurrent)
    }

    /// Whether anything receives started operations.
    var hasReceiver: Bool { delegate != nil || !waiters.isEmpty }

    func graphIndex(of id: UInt64) -> Int? {
        var low = 0
        var high = graphs.count
        while low < high {
            let mid = (low + high) / 2
            if graphs[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < graphs.count && graphs[low].id == id ? low : nil
    }

    func operation(_ uuid: UUID) -> CloudOperation? {
        guard let id = graphOf[uuid], let index = graphIndex(of: id),
            let operation = graphs[index].entries[uuid]?.operation
        else { return nil }
        return withStatus(operation)
    }

    func withStatus(_ operation: CloudOperation) -> CloudOperation {
        var operation = operation
        operation.status = active.contains(operation.uuid) ? .active : .pending
        return operation
    }

    func holdDate(_ uuid: UUID) -> Date? {
        guard let id = graphOf[uuid], let index = graphIndex(of: id) else { return nil }
        let own = graphs[index].entries[uuid]?.operation?.holdDate
        switch (own, holds[uuid]) {
        case let (a?, b?): return max(a, b)
        case let (a, b): return a ?? b
        }
    }

    // MARK: Changes

    /// Replaces everything with a restored queue; nothing runs.
    mutating func restore(_ restored: [CloudCoreGraph]) {
        graphs = restored.filter { !$0.isEmpty }.sorted { $0.id < $1.id }
        graphOf = [:]
        for graph in graphs {
            for uuid in graph.uuids { graphOf[uuid] = graph.id }
        }
        active = []
        holds = [:]
        mayHaveHolds = true
    }

    /// Applies a commit; returns what changed, or nil when nothing did.
    mutating func apply(_ change: CloudCoreCommit.PipelineChange, graphID: UInt64?, pipeline: String)
        -> CloudCoreQueueChange?
    {
        var summary = CloudCoreQueueChange(pipeline: pipeline)
        if change.added.contains(where: { $0.holdDate != nil })
            || change.inserted.contains(where: { $0.holdDate != nil })
            || change.modified.values.contains(where: { $0.holdDate != nil })
        {
            mayHaveHolds = true
        }
        if let graphID, !change.added.isEmpty {
            insert(change.added, into: graphID)
            summary.added.formUnion(change.added.map(\.uuid))
        }
        for (graphID, operations) in Dictionary(grouping: change.inserted, by: \.graphID) {
            insert(operations, into: graphID)
            summary.added.formUnion(operations.map(\.uuid))
        }
        for (uuid, operation) in change.modified {
            guard let id = graphOf[uuid], let index = graphIndex(of: id), graphs[index].replace(operation) else {
                continue
            }
            summary.modified.insert(uuid)
        }
        for uuid in change.removed.keys {
            guard let id = graphOf.removeValue(forKey: uuid), let index = graphIndex(of: id) else { continue }
            _ = graphs[index].remove(uuid)
            if graphs[index].isEmpty { graphs.remove(at: index) }
            active.remove(uuid)
            holds.removeValue(forKey: uuid)
            summary.removed.insert(uuid)
        }
        return summary.isEmpty ? nil : summary
    }

    private mutating func insert(_ operations: [CloudOperation], into graphID: UInt64) {
        let index: Int
        if let found = graphIndex(of: graphID) {
            index = found
        } else {
            index = graphs.firstIndex { $0.id > graphID } ?? graphs.count
            graphs.insert(CloudCoreGraph(id: graphID), at: index)
        }
        graphs[index].insert(operations.map { ($0.uuid, $0) })
        for operation in operations { graphOf[operation.uuid] = graphID }
    }

    // MARK: Dispatch

    /// Marks the operations that may start now as active and returns them (in start order).
    ///
    /// Starting an operation never makes another startable, so one pass over each graph finds
    /// them all; a flat graph merges the graphs' candidates by priority, earlier graphs first.
    mutating func takeStartable(algorithm: CloudCorePipeline.Algorithm, now: Date) -> [CloudOperation] {
        var room = maxConcurrent == 0 ? Int.max : maxConcurrent - active.count
        if delegate == nil { room = min(room, waiters.count) }
        guard room > 0, !graphs.isEmpty else { return [] }
        let (active, holds, graphOf) = (active, holds, graphOf)
        let canStart = { (operation: CloudOperation) -> Bool in
            !active.contains(operation.uuid) && !Self.isHeld(operation, holds: holds, now: now)
                && operation.dependencies.allSatisfy { graphOf[$0] == nil }
        }
        var picked: [CloudOperation]
        switch algorithm {
        case .commitGraph:
            picked = graphs[0].startable(limit: room, where: canStart)
        case .flatGraph:
            var candidates = graphs.map { $0.startable(limit: room, where: canStart)[...] }
            picked = []
            while picked.count < room {
                var best: Int?
                for index in candidates.indices {
                    guard let head = candidates[index].first else { continue }
                    // Earlier graphs win ties: only a strictly higher priority replaces the pick.
                    if best.flatMap({ candidates[$0].first }).map({ head.priority > $0.priority }) ?? true {
                        best = index
                    }
                }
                guard let best, let head = candidates[best].popFirst() else { break }
                picked.append(head)
            }
        }
        for index in picked.indices {
            self.active.insert(picked[index].uuid)
            picked[index].status = .active
        }
        return picked
    }

    private static func isHeld(_ operation: CloudOperation, holds: [UUID: Date], now: Date) -> Bool {
        if let own = operation.holdDate, own > now { return true }
        if let hold = holds[operation.uuid], hold > now { return true }
        return false
    }

    /// The earliest hold still ahead among queued operations that are not running.
    mutating func nextHoldEnd(after now: Date) -> Date? {
        guard mayHaveHolds else { return nil }
        var earliest: Date?
        for graph in graphs {
            for operation in graph.operations where !active.contains(operation.uuid) {
                for date in [operation.holdDate, holds[operation.uuid]] {
                    guard let date, date > now else { continue }
                    if earliest.map({ date < $0 }) ?? true { earliest = date }
                }
            }
        }
        if earliest == nil { mayHaveHolds = false }
        return earliest
    }

    /// Updates ``isActive``; returns the new value when it changed.
    mutating func updateActivity(suspended: Bool) -> Bool? {
        if isActive {
            guard active.isEmpty, graphs.isEmpty || suspended else { return nil }
            isActive = false
            return false
        }
        guard !active.isEmpty else { return nil }
        isActive = true
        return true
    }
}
