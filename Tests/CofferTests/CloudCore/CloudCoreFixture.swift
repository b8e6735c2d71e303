import CofferTestSupport
import Foundation

@testable import Coffer

/// A test payload naming what it uploads.
struct Upload: CloudOperationPayload, Equatable {
    static let operationType = "upload"
    var name: String
}

/// A second payload type, left out of some registrations.
struct Purge: CloudOperationPayload, Equatable {
    static let operationType = "purge"
    var path: String
}

/// A delegate that only records what it was handed.
final class RecordingDelegate: CloudCorePipelineDelegate {
    let started = Locked<[String]>([])

    func startOperation(_ operation: CloudOperation, in pipeline: CloudCorePipeline) {
        let name = operation.payload(as: Upload.self)?.name ?? "?"
        started.withLock { $0.append(name) }
    }
}

/// A database with a registered cloud core, a manual clock and a recording delegate on its
/// default pipeline.
final class CloudFixture {
    static let epoch = Date(timeIntervalSinceReferenceDate: 1_000_000)

    let test: TestDatabase
    let clock: ManualActionScheduler
    let cloud: CloudCore
    let connection: Connection
    let recorder = RecordingDelegate()

    init(
        algorithm: CloudCorePipeline.Algorithm = .commitGraph, maxConcurrent: Int = 8,
        types: [any CloudOperationPayload.Type] = [Upload.self, Purge.self], stages: [any SerializationStage] = [],
        payloadFormat: CodableFormat = .binary, test: TestDatabase? = nil, delegate: Bool = true
    ) throws {
        self.test = try test ?? TestDatabase()
        clock = ManualActionScheduler(now: Self.epoch)
        let pipeline = CloudCorePipeline(
            name: CloudCore.defaultPipelineName, algorithm: algorithm, maxConcurrentOperationCount: maxConcurrent)
        cloud = try CloudCore(
            pipelines: [pipeline, CloudCorePipeline(name: "media")],
            options: CloudCoreOptions(
                operationTypes: types, payloadFormat: payloadFormat, stages: stages, scheduler: clock))
        try self.test.database.register(cloud, withName: "cloud")
        connection = try self.test.connection()
        if delegate { pipeline.delegate = recorder }
    }

    var pipeline: CloudCorePipeline { cloud.defaultPipeline }

    /// Adds one graph (one commit) of uploads; returns them by name.
    @discardableResult
    func commit(_ operations: [(name: String, dependsOn: [String], priority: Int32)], into known: [String: UUID] = [:])
        throws -> [String: UUID]
    {
        try connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            var names = known
            for (name, dependsOn, priority) in operations {
                let dependencies = Set(dependsOn.compactMap { names[$0] })
                let added = try cloud.add(
                    CloudOperation(Upload(name: name), dependencies: dependencies, priority: priority))
                names[name] = added.uuid
            }
            return names
        }
    }

    /// Adds independent uploads, one commit.
    @discardableResult
    func commit(_ names: String..., into known: [String: UUID] = [:]) throws -> [String: UUID] {
        try commit(names.map { ($0, [], 0) }, into: known)
    }

    func complete(_ uuid: UUID?) throws {
        guard let uuid else { throw CloudCoreError(.operationNotFound, "the test named no operation") }
        try connection.readWrite { tx in try tx.cloudCore("cloud").complete(uuid) }
    }

    /// The names of the running operations, sorted.
    var active: [String] {
        Self.active(in: pipeline)
    }

    static func active(in pipeline: CloudCorePipeline) -> [String] {
        pipeline.activeOperations().compactMap { $0.payload(as: Upload.self)?.name }.sorted()
    }

    /// Waits until the running operations are `expected` (timers fire on another thread).
    func waitForActive(_ expected: [String]) async throws {
        let pipeline = pipeline
        try await TestSupport.withTimeout {
            while Self.active(in: pipeline) != expected { try await Task.sleep(for: .milliseconds(2)) }
        }
    }
}
