import Foundation

/// A persistent, ordered queue of sync operations for any cloud service (YapDatabase's
/// `YapDatabaseCloudCore`): operations are added in the same transaction as the rows that caused
/// them, kept in the extension's own table, and handed to the app's uploader in a safe order.
///
/// ```swift
/// let uploads = CloudCorePipeline(name: CloudCore.defaultPipelineName)
/// let cloud = try CloudCore(pipelines: [uploads], options: CloudCoreOptions(operationTypes: [UploadNote.self]))
/// try database.register(cloud, withName: "cloud")
/// try connection.readWrite { tx in
///     try tx.setObject(note, forKey: "n1", inCollection: "notes")
///     try tx.cloudCore("cloud").add(CloudOperation(UploadNote(noteKey: "n1")))
/// }
/// ```
///
/// An operation exists exactly when the transaction that added it commits. Each commit's
/// operations form a graph in their pipeline; graphs keep their commit order across restarts.
/// What runs is memory only: after a crash or a restart every queued operation is pending again
/// and is handed out again, so the app's uploads must tolerate running twice (as with any
/// at-least-once queue). Storage: `CloudCore_<name>_queue` (one row per operation, its bytes
/// through ``CloudCoreOptions/stages``), `CloudCore_<name>_tag` and `CloudCore_<name>_mapping`.
///
/// The extension has no version tag: rebuilding it would drop the queue.
public struct CloudCore: DatabaseExtension {
    /// The name of the pipeline operations go to unless they name another: "default".
    public static let defaultPipelineName = "default"

    /// The storage and feature options.
    public let options: CloudCoreOptions
    let runtime: CloudCoreRuntime
    let coder: CloudOperationCoder

    /// An extension running `pipelines`, plus a commit-graph pipeline named "default" when none
    /// of them has that name.
    /// - Throws: ``CloudCoreError`` `.misuse` when two pipelines share a name or a pipeline
    ///   already belongs to another ``CloudCore``.
    public init(pipelines: [CloudCorePipeline] = [], options: CloudCoreOptions) throws {
        var byName: [String: CloudCorePipeline] = [:]
        for pipeline in pipelines {
            guard byName.updateValue(pipeline, forKey: pipeline.name) == nil else {
                throw CloudCoreError(.misuse, "two pipelines are named \"\(pipeline.name)\"", pipeline: pipeline.name)
            }
        }
        if byName[Self.defaultPipelineName] == nil {
            byName[Self.defaultPipelineName] = CloudCorePipeline(name: Self.defaultPipelineName)
        }
        let runtime = CloudCoreRuntime(pipelines: byName, scheduler: options.scheduler)
        for pipeline in byName.values where !pipeline.attach(to: runtime) {
            throw CloudCoreError(
                .misuse, "pipeline \"\(pipeline.name)\" already belongs to another CloudCore", pipeline: pipeline.name)
        }
        self.options = options
        self.runtime = runtime
        self.coder = CloudOperationCoder(options: options)
    }

    /// The pipeline named `name`, or nil.
    public func pipeline(named name: String) -> CloudCorePipeline? {
        runtime.pipelines[name]
    }

    /// The pipeline named "default".
    public var defaultPipeline: CloudCorePipeline {
        // `init` always adds it.
        runtime.pipelines[Self.defaultPipelineName] ?? CloudCorePipeline(name: Self.defaultPipelineName)
    }

    /// Every pipeline, by name.
    public var pipelines: [CloudCorePipeline] {
        runtime.orderedPipelines
    }

    /// How many ``suspend(count:)`` calls are not matched by ``resume()`` yet; no operation starts
    /// while it is above zero (running ones go on).
    public var suspendCount: Int {
        runtime.currentSuspendCount
    }

    /// Whether ``suspendCount`` is above zero.
    public var isSuspended: Bool {
        runtime.isSuspended
    }

    /// Raises the suspend count by `count` (0 only reads it) and returns the new count, for example
    /// while the network is down or the user is signed out.
    @discardableResult
    public func suspend(count: Int = 1) -> Int {
        runtime.suspend(count: count)
    }

    /// Lowers the suspend count by one (not below zero) and returns it; at zero, pipelines start
    /// operations again.
    @discardableResult
    public func resume() -> Int {
        runtime.resume()
    }

    /// The extension's events from now on, as an `AsyncSequence`.
    ///
    /// Queue changes after each commit, suspend count changes, pipelines becoming active or
    /// inactive; each is also posted to `NotificationCenter.default`.
    public func events() -> AsyncStream<CloudCoreEvent> {
        runtime.events.stream()
    }
}

extension CloudCore {
    /// "CloudCore".
    public var kind: String { "CloudCore" }

    /// The queue, tag and mapping tables.
    public func tableNames(registeredName: String) -> [String] {
        CloudCoreSQL.tableNames(registeredName: registeredName)
    }

    /// Makes the state of one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        CloudCoreConnectionState(cloudCore: self, registration: registration)
    }

    /// Empties the pipelines, so that no operation starts any more.
    ///
    /// Operations already handed out can no longer be completed (the extension and its tables are gone).
    public func didUnregister(registeredName: String) {
        runtime.stop(registeredName: registeredName)
    }
}

/// A cloud core's state on one connection: the SQL its transactions reuse.
final class CloudCoreConnectionState: ExtensionConnectionState {
    typealias Changes = CloudCoreChanges

    let cloudCore: CloudCore
    let sql: CloudCoreSQL

    init(cloudCore: CloudCore, registration: ExtensionRegistration) {
        self.cloudCore = cloudCore
        self.sql = CloudCoreSQL(registeredName: registration.name)
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        CloudCoreTransaction(context: context, state: self)
    }
}

/// What one commit changed in a cloud core's queue, for observers of ``Database/changes``
/// (``Changeset/changes(for:as:)``).
public struct CloudCoreChanges: Sendable, Hashable {
    /// The changes, pipeline by pipeline.
    public var pipelines: [String: CloudCoreQueueChange]
}
