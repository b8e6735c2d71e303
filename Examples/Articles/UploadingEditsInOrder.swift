// The code of UploadingEditsInOrder.md: a to-do app whose edits upload in commit order. The
// harness's server records what it received, so the run checks the order and the ETag.

import Coffer
import Foundation

struct Todo: Codable, Sendable {
    var title: String
    var done: Bool
}

struct UploadTodo: CloudOperationPayload {
    static let operationType = "uploadTodo"
    var key: String
}

struct DeleteTodo: CloudOperationPayload {
    static let operationType = "deleteTodo"
    var key: String
}

/// The harness's server: it answers each upload with an ETag counting the uploads it received.
actor TodoServer {
    static let shared = TodoServer()
    var received: [String] = []

    func receive(_ key: String) -> String {
        received.append(key)
        return "etag-\(received.count)"
    }
}

/// The harness's network call.
func upload(_ key: String) async throws -> String {
    await TodoServer.shared.receive(key)
}

/// Runs the article's blocks in order on a new database in `directory`.
func uploadingEditsInOrder(in directory: URL) async throws {
    let db = try openDatabase(in: directory, named: "todos")  // harness
    db.registerCodable(Todo.self, forCollection: "todos")
    let uploads = CloudCorePipeline(name: CloudCore.defaultPipelineName)
    let cloud = try CloudCore(
        pipelines: [uploads],
        options: CloudCoreOptions(operationTypes: [UploadTodo.self, DeleteTodo.self]))
    try db.register(cloud, withName: "cloud")

    let connection = try db.newConnection()
    try await connection.readWrite { tx in
        try tx.setObject(Todo(title: "Buy milk", done: false), forKey: "t1", inCollection: "todos")
        try tx.cloudCore("cloud").add(CloudOperation(UploadTodo(key: "t1")))
    }
    try await connection.readWrite { tx in
        try tx.setObject(Todo(title: "Buy milk", done: true), forKey: "t1", inCollection: "todos")
        try tx.cloudCore("cloud").add(CloudOperation(UploadTodo(key: "t1")))
    }

    for await operation in uploads.startedOperations() {
        guard let key = operation.payload(as: UploadTodo.self)?.key else { continue }
        do {
            let etag = try await upload(key)  // your network call
            try await connection.readWrite { tx in
                let queue = try tx.cloudCore("cloud")
                try queue.setTag(.text(etag), forKey: key, inCollection: "todos", identifier: "etag")
                try queue.complete(operation.uuid)
            }
        } catch {
            uploads.setPending(operation.uuid, retryAfter: 30)
        }
        if uploads.graphCount == 0 { break }  // harness
    }
    let received = await TodoServer.shared.received  // harness
    try expect(received == ["t1", "t1"], "two uploads of t1, got \(received)")  // harness
    let etag = try await connection.read { tx in  // harness
        try tx.cloudCore("cloud").tag(forKey: "t1", inCollection: "todos", identifier: "etag")  // harness
    }  // harness
    try expect(etag == .text("etag-2"), "the second upload's ETag, got \(String(describing: etag))")  // harness

    cloud.suspend()
    try await connection.readWrite { tx in
        try tx.removeObject(forKey: "t1", inCollection: "todos")
        try tx.cloudCore("cloud").add(CloudOperation(DeleteTodo(key: "t1")))
    }
    cloud.resume()
    let queued = try await connection.read { tx in try tx.cloudCore("cloud").operations().count }  // harness
    try expect(queued == 1 && !uploads.isActive, "the deletion queued, nothing running, got \(queued)")  // harness
    try await db.close()  // harness
}
