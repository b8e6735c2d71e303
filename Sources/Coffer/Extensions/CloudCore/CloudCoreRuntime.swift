import Foundation

/// What a ``CloudCore`` keeps in memory while registered: its pipelines, the suspend count, the
/// events, and the order in which commits reach the pipelines.
///
/// Every registration and every transaction that changes the queue takes the commit-order gate at
/// its first change and gives it back after its commit reached the pipelines (or after its
/// rollback). Writers already run one at a time, but the next can commit before the previous one's
/// post-commit step; the gate keeps the pipelines' view in commit order, and makes the graph
/// number a transaction takes the next one.
final class CloudCoreRuntime: Sendable {
    let pipelines: [String: CloudCorePipeline]
    let scheduler: any ActionScheduler
    let events = CloudCoreEventHub()
    private let suspendCount = Locked(0)
    private let lastGraphID = Locked<UInt64>(0)
    private let gate = DispatchSemaphore(value: 1)
    /// How long a transaction waits for the previous one's post-commit step before failing.
    static let gateTimeout: TimeInterval = 60

    init(pipelines: [String: CloudCorePipeline], scheduler: any ActionScheduler) {
        self.pipelines = pipelines
        self.scheduler = scheduler
    }

    /// Every pipeline, by name.
    var orderedPipelines: [CloudCorePipeline] {
        pipelines.keys.sorted().compactMap { pipelines[$0] }
    }

    var isSuspended: Bool { suspendCount.withLock { $0 > 0 } }
    var currentSuspendCount: Int { suspendCount.withLock { $0 } }

    func suspend(count: Int) -> Int {
        let (old, new) = suspendCount.withLock { value -> (Int, Int) in
            let old = value
            let added = max(0, count)
            value = added > Int.max - value ? Int.max : value + added
            return (old, value)
        }
        if old != new {
            events.emit(.suspendCountChanged(new), objects: orderedPipelines)
            for pipeline in orderedPipelines { pipeline.pump() }
        }
        return new
    }

    func resume() -> Int {
        let (changed, new) = suspendCount.withLock { value -> (Bool, Int) in
            guard value > 0 else { return (false, 0) }
            value -= 1
            return (true, value)
        }
        if changed {
            events.emit(.suspendCountChanged(new), objects: orderedPipelines)
            for pipeline in orderedPipelines { pipeline.pump() }
        }
        return new
    }

    // MARK: Commit order

    /// Takes the commit-order gate.
    /// - Throws: ``CloudCoreError`` `.misuse` when another transaction's post-commit step does not
    ///   finish within ``gateTimeout``.
    func enterCommitOrder(registeredName: String) throws {
        guard gate.wait(timeout: .now() + Self.gateTimeout) == .success else {
            throw CloudCoreError(
                .misuse,
                "cloud core \"\(registeredName)\": another transaction kept the queue's commit order for over "
                    + "\(Int(Self.gateTimeout)) s")
        }
    }

    func leaveCommitOrder() {
        gate.signal()
    }

    /// The number of the graph a transaction inside the gate adds to.
    func nextGraphID() -> UInt64 {
        lastGraphID.withLock { $0 + 1 }
    }

    /// Replaces the pipelines' contents with the queue read at registration (inside the gate).
    func restore(_ queue: CloudCoreRestoredQueue) {
        lastGraphID.withLock { $0 = queue.lastGraphID }
        for pipeline in orderedPipelines {
            pipeline.restore(queue.graphs[pipeline.name] ?? [])
        }
    }

    /// Where this runtime is registered: its pipelines serve one registration at a time.
    private let binding = Locked<(database: WeakDatabase, name: String)?>(nil)

    /// Binds the runtime to its registration as `name` in `database`.
    /// - Throws: ``CloudCoreError`` `.misuse` while the same ``CloudCore`` is registered under
    ///   another name or in another open database.
    func bind(to database: Database, as name: String) throws {
        try binding.withLock { binding in
            if let (bound, boundName) = binding, let other = bound.database, !other.isClosed,
                other !== database || boundName != name, other.registeredExtension(boundName) != nil
            {
                throw CloudCoreError(
                    .misuse,
                    "this CloudCore is already registered as \"\(boundName)\" in \(other.url.lastPathComponent); "
                        + "make one CloudCore value per registration")
            }
            binding = (WeakDatabase(database), name)
        }
    }

    /// Empties every pipeline once the extension was unregistered, inside the gate (a transaction
    /// still applying its commit goes first); without the gate after ``gateTimeout``.
    func stop(registeredName: String) {
        let entered = (try? enterCommitOrder(registeredName: registeredName)) != nil
        restore(CloudCoreRestoredQueue())
        if entered { leaveCommitOrder() }
    }

    /// Hands a committed transaction's changes to the pipelines (inside the gate).
    func apply(_ commit: CloudCoreCommit) {
        if let graphID = commit.graphID {
            lastGraphID.withLock { $0 = max($0, graphID) }
        }
        for (name, change) in commit.pipelines {
            guard let pipeline = pipelines[name] else { continue }
            if let queueChange = pipeline.apply(change, graphID: commit.graphID) {
                events.emit(.queueChanged(queueChange), objects: [pipeline])
            }
        }
    }
}

/// The queue as read from the table at registration: per pipeline, its graphs in commit order.
struct CloudCoreRestoredQueue {
    var graphs: [String: [CloudCoreGraph]] = [:]
    var lastGraphID: UInt64 = 0
}

/// What one transaction changed in the queue, per pipeline.
struct CloudCoreCommit {
    /// One pipeline's part.
    struct PipelineChange {
        /// Operations added to the transaction's new graph, in the order added.
        var added: [CloudOperation] = []
        /// Operations inserted into graphs that already existed.
        var inserted: [CloudOperation] = []
        /// Queued operations replaced, by UUID.
        var modified: [UUID: CloudOperation] = [:]
        /// Operations completed or skipped.
        var removed: [UUID: CloudOperation.Status] = [:]

        var isEmpty: Bool { added.isEmpty && inserted.isEmpty && modified.isEmpty && removed.isEmpty }
    }

    /// The graph the transaction's added operations form.
    var graphID: UInt64?
    var pipelines: [String: PipelineChange] = [:]

    var isEmpty: Bool { pipelines.values.allSatisfy(\.isEmpty) }
}

/// A database held weakly, so a runtime does not keep a closed database alive.
struct WeakDatabase: @unchecked Sendable {
    // Safety: only the reference is stored; `Database` is `Sendable`.
    weak var database: Database?

    init(_ database: Database) {
        self.database = database
    }
}
