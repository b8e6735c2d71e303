public import Foundation

/// A named queue of operations that hands them to the app in a safe order
/// (YapDatabase's `YapDatabaseCloudCorePipeline`).
///
/// ```swift
/// let uploads = CloudCorePipeline(name: "default", algorithm: .commitGraph)
/// let cloud = CloudCore(pipelines: [uploads], options: CloudCoreOptions(operationTypes: [UploadNote.self]))
/// try database.register(cloud, withName: "cloud")
/// for await operation in uploads.startedOperations() { … }
/// ```
///
/// The queue itself lives in the database (the extension's table); the pipeline keeps in memory
/// which operations are running and which are on hold. Operations are started only while
/// something receives them — a ``delegate`` or an iteration of ``startedOperations()`` — and while
/// the extension is not suspended.
public final class CloudCorePipeline: Sendable {
    /// How a pipeline orders the graphs (commits) it holds.
    public enum Algorithm: Sendable, Hashable {
        /// Each commit's operations form a graph, and a graph starts only when every operation of
        /// the graphs before it is completed or skipped: the cloud moves from commit to commit as
        /// the database did. Dependencies only matter inside a commit. The default.
        case commitGraph
        /// Any operation whose dependencies are done may start, whatever its commit; on equal
        /// priority, earlier commits first. Cross-commit order is only what dependencies say.
        case flatGraph
    }

    /// The name operations use to choose this pipeline.
    public let name: String
    /// How graphs are ordered.
    public let algorithm: Algorithm
    let state: Locked<PipelineState>

    /// A pipeline called `name`, running at most 8 operations at once.
    public init(name: String, algorithm: Algorithm = .commitGraph, maxConcurrentOperationCount: Int = 8) {
        self.name = name
        self.algorithm = algorithm
        self.state = Locked(PipelineState(maxConcurrent: maxConcurrentOperationCount))
    }

    /// How many operations may run at once; 0 means no limit.
    ///
    /// Changes take effect at once.
    public var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { $0.maxConcurrent = max(0, newValue) }
            pump()
        }
    }

    /// The object started operations are handed to; nil to stop handing them to one.
    ///
    /// The pipeline keeps a strong reference. Operations handed out before the change keep running.
    public var delegate: (any CloudCorePipelineDelegate)? {
        get { state.withLock { $0.delegate } }
        set {
            state.withLock { $0.delegate = newValue }
            pump()
        }
    }

    /// The operations this pipeline starts, as they start: the `AsyncSequence` form of ``delegate``.
    ///
    /// An operation starts when an iteration asks for the next one, so none waits in a buffer:
    /// an iteration that ends leaves the queue as it was. Several iterations (or tasks) may pull
    /// at once, up to ``maxConcurrentOperationCount`` running; while a ``delegate`` is set it gets
    /// the operations instead. A cancelled task's `next()` returns nil.
    public func startedOperations() -> StartedOperations {
        StartedOperations(pipeline: self)
    }

    /// The number of graphs (commits with operations still queued) in the pipeline.
    public var graphCount: Int {
        state.withLock { $0.graphs.count }
    }

    /// Whether the pipeline is working: it became active when an operation started, and becomes
    /// inactive when none is running and either the queue is empty or the extension is suspended.
    public var isActive: Bool {
        state.withLock { $0.isActive }
    }

    /// The queued operation with `uuid`, with its current status, or nil.
    public func operation(_ uuid: UUID) -> CloudOperation? {
        state.withLock { $0.operation(uuid) }
    }

    /// The status of the queued operation with `uuid`, or nil when it is not queued.
    public func status(of uuid: UUID) -> CloudOperation.Status? {
        state.withLock { $0.operation(uuid)?.status }
    }

    /// The operations running now (handed out, not completed, skipped or set pending).
    public func activeOperations() -> [CloudOperation] {
        state.withLock { state in state.graphs.flatMap(\.operations).filter { state.active.contains($0.uuid) } }
            .map {
                var operation = $0; operation.status = .active; return operation
            }
    }

    /// The queued operations as of the last commit, one array per graph in commit order.
    ///
    /// Each graph is in start order. Undecodable operations are left out.
    public func queuedOperations() -> [[CloudOperation]] {
        state.withLock { state in state.graphs.map { $0.operations.map { state.withStatus($0) } } }
    }

    /// Hands a running operation back to the pipeline after a failure: it is pending again and
    /// starts again when it may, not before `delay` seconds from now when given (back-off).
    public func setPending(_ uuid: UUID, retryAfter delay: TimeInterval? = nil) {
        let now = runtime?.scheduler.now ?? Date()
        state.withLock { state in
            guard state.graphOf[uuid] != nil else { return }
            state.active.remove(uuid)
            if let delay, delay > 0 {
                state.holds[uuid] = now.addingTimeInterval(delay)
                state.mayHaveHolds = true
            }
        }
        pump()
    }

    /// Marks a queued operation as running without handing it out: for work that survived a
    /// restart (a background transfer the app found still going).
    public func setActive(_ uuid: UUID) {
        state.withLock { state in
            guard state.graphOf[uuid] != nil else { return }
            state.active.insert(uuid)
        }
        pump()
    }

    /// Holds a queued operation until `date`; nil removes the hold set here.
    ///
    /// The hold comes on top of the operation's own ``CloudOperation/holdDate`` and is kept in
    /// memory only.
    public func setHoldDate(_ date: Date?, for uuid: UUID) {
        state.withLock { state in
            guard state.graphOf[uuid] != nil else { return }
            state.holds[uuid] = date
            state.mayHaveHolds = true
        }
        pump()
    }

    /// The date until which the operation is held (the later of its own hold date and one set
    /// here), or nil when it is not held.
    public func holdDate(for uuid: UUID) -> Date? {
        state.withLock { $0.holdDate(uuid) }
    }
}

extension CloudCorePipeline {
    /// The operations a pipeline starts, one per call of `next()`: see
    /// ``CloudCorePipeline/startedOperations()``.
    public struct StartedOperations: AsyncSequence, Sendable {
        /// A started operation.
        public typealias Element = CloudOperation

        let pipeline: CloudCorePipeline

        /// Pulls started operations from the pipeline.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let pipeline: CloudCorePipeline

            /// Waits until the pipeline starts an operation and returns it; nil when the task is cancelled.
            public mutating func next() async -> CloudOperation? {
                await pipeline.nextStarted()
            }
        }

        /// An iterator over the pipeline's started operations.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(pipeline: pipeline)
        }
    }
}
