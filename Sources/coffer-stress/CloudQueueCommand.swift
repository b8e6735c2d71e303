import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress cloud-queue`: queues one CloudCore operation per commit and completes them in
/// order from the pipeline's delegate, acknowledging each commit, until killed.
///
/// Each writer commit stores item `n` (collection `items`), bumps `meta/next` and adds the
/// operation for `n`; each completion stores `uploaded/done-n` and completes the operation in one
/// transaction, after checking that `n` follows the previous completion (`meta/lastDone`), and
/// records a `meta/violation` row otherwise. So after any kill, every item has exactly one of a
/// queued operation and a `done-n` row, and the done ones are a prefix.
struct CloudQueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud-queue",
        abstract: "Adds and completes CloudCore operations in order; prints \"added <n>\" after each commit.")

    @Option(help: "The database file (created when missing).")
    var database: String

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        let cloud = try CloudQueueSchema.register(db)
        let writer = try db.newConnection()
        let uploader = CloudQueueUploader(connection: try db.newConnection())
        cloud.defaultPipeline.delegate = uploader
        Acknowledge.line("ready")
        var next = try writer.read { tx in
            try tx.object(forKey: CloudQueueSchema.nextKey, inCollection: CloudQueueSchema.meta, as: Int64.self) ?? 0
        }
        while true {
            let item = next
            try writer.readWrite { tx in
                try tx.setObject(item, forKey: CloudQueueSchema.itemKey(item), inCollection: CloudQueueSchema.items)
                try tx.setObject(item + 1, forKey: CloudQueueSchema.nextKey, inCollection: CloudQueueSchema.meta)
                try tx.cloudCore(CloudQueueSchema.name).add(CloudOperation(CloudQueueUpload(item: item)))
            }
            Acknowledge.line("added \(item)")
            next += 1
        }
    }
}

/// The payload of the stress queue's operations.
struct CloudQueueUpload: CloudOperationPayload {
    static let operationType = "stressUpload"
    var item: Int64
}

/// The names the child and the test share.
enum CloudQueueSchema {
    static let name = "cloud"
    static let items = "items"
    static let uploaded = "uploaded"
    static let meta = "meta"
    static let nextKey = "next"
    static let lastDoneKey = "lastDone"
    static let violationKey = "violation"

    static func itemKey(_ item: Int64) -> String { "item-\(item)" }
    static func doneKey(_ item: Int64) -> String { "done-\(item)" }

    /// Registers the codecs and the extension (one operation at a time, commit graph).
    static func register(_ database: Database) throws -> CloudCore {
        for collection in [items, uploaded, meta] { database.registerCodable(Int64.self, forCollection: collection) }
        let cloud = try CloudCore(
            pipelines: [CloudCorePipeline(name: CloudCore.defaultPipelineName, maxConcurrentOperationCount: 1)],
            options: CloudCoreOptions(operationTypes: [CloudQueueUpload.self]))
        try database.register(cloud, withName: name)
        return cloud
    }
}

/// Completes each started operation with its `done` row, checking the order.
final class CloudQueueUploader: CloudCorePipelineDelegate {
    let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    func startOperation(_ operation: CloudOperation, in pipeline: CloudCorePipeline) {
        guard let item = operation.payload(as: CloudQueueUpload.self)?.item else { return }
        do {
            try connection.readWrite { tx in
                let meta = CloudQueueSchema.meta
                let last = try tx.object(forKey: CloudQueueSchema.lastDoneKey, inCollection: meta, as: Int64.self) ?? -1
                if last != item - 1 {
                    try tx.setObject(item, forKey: CloudQueueSchema.violationKey, inCollection: meta)
                }
                try tx.setObject(item, forKey: CloudQueueSchema.lastDoneKey, inCollection: meta)
                try tx.setObject(item, forKey: CloudQueueSchema.doneKey(item), inCollection: CloudQueueSchema.uploaded)
                try tx.cloudCore(CloudQueueSchema.name).complete(operation.uuid)
            }
        } catch {
            pipeline.setPending(operation.uuid, retryAfter: 0.01)
        }
    }
}
