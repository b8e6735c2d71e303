public import Foundation

/// The app's part of a ``CloudOperation``: what to upload, delete or fetch, stored with the
/// operation in the extension's queue table.
///
/// Every type the queue holds must be listed in ``CloudCoreOptions/operationTypes``; an operation
/// of a type not listed cannot be added, and one already in the file stays queued but cannot be
/// started until its type is listed again (see ``CloudCoreError/Code/unknownOperationType``).
///
/// ```swift
/// struct UploadNote: CloudOperationPayload {
///     static let operationType = "uploadNote"
///     var noteKey: String
/// }
/// ```
public protocol CloudOperationPayload: Codable, Sendable {
    /// The stable name the queue stores with each operation of this type.
    ///
    /// Spell it out rather than deriving it from the type's name: renaming the type would
    /// otherwise make queued operations undecodable at the next launch.
    static var operationType: String { get }
}

/// One queued unit of sync work (YapDatabase's `YapDatabaseCloudCoreOperation`): the app's
/// ``payload`` plus what the pipeline needs to run it in a safe order.
///
/// An operation is added inside a read-write transaction
/// (``CloudCoreTransaction/add(_:)``) and exists exactly when that transaction commits. Its
/// pipeline then hands it to the app when its dependencies are done, its hold date has passed
/// and — in a ``CloudCorePipeline/Algorithm/commitGraph`` pipeline — every operation of earlier
/// commits is done. The app marks it done with ``CloudCoreTransaction/complete(_:)`` or
/// ``CloudCoreTransaction/skip(_:)``, which removes it from the queue.
public struct CloudOperation: Sendable {
    /// Where an operation stands in its pipeline.
    public enum Status: Sendable, Hashable {
        /// Queued; the pipeline starts it when it may (the state after every launch).
        case pending
        /// Handed to the app, not completed or skipped yet.
        case active
        /// Completed: removed from the queue; its dependents may start.
        case completed
        /// Skipped: removed from the queue without running; its dependents may start.
        case skipped
    }

    /// The operation's identity, used by dependencies and lookups.
    public let uuid: UUID
    /// The name of the pipeline that runs it.
    public var pipeline: String
    /// Operations (of the same pipeline) that must be completed or skipped before this one starts.
    public var dependencies: Set<UUID>
    /// Higher runs first among the operations that may start; dependencies always win over it.
    public var priority: Int32
    /// The operation is not started before this date (a retry with back-off, a scheduled upload).
    public var holdDate: Date?
    /// The app's description of the work.
    public var payload: any CloudOperationPayload
    /// Where the pipeline stands with the operation, as far as the reader of this value knows.
    ///
    /// Operations handed out by a pipeline or read in a transaction carry the pipeline's current
    /// status; a status is not stored, so every operation is pending again after a restart.
    public internal(set) var status: Status = .pending
    /// The commit graph the operation belongs to (0 until it was added in a transaction).
    ///
    /// Graphs are numbered in commit order and the numbers survive restarts.
    public internal(set) var graphID: UInt64 = 0

    /// An operation of `pipeline` carrying `payload`, with a fresh UUID unless one is given.
    ///
    /// A fresh UUID is a time-ordered (version 7) one, so that queuing many operations appends to
    /// the queue's index.
    public init(
        _ payload: any CloudOperationPayload, pipeline: String = CloudCore.defaultPipelineName,
        dependencies: Set<UUID> = [], priority: Int32 = 0, holdDate: Date? = nil, uuid: UUID? = nil
    ) {
        self.uuid = uuid ?? .timeOrdered()
        self.pipeline = pipeline
        self.dependencies = dependencies
        self.priority = priority
        self.holdDate = holdDate
        self.payload = payload
    }

    /// The payload as `T`, or nil when it is of another type.
    public func payload<T: CloudOperationPayload>(as type: T.Type) -> T? {
        payload as? T
    }

    /// Makes this operation wait for `other` (convenience for `dependencies.insert(other.uuid)`).
    public mutating func addDependency(_ other: CloudOperation) {
        dependencies.insert(other.uuid)
    }

    /// The stored type name of the payload.
    var operationType: String {
        type(of: payload).operationType
    }
}
