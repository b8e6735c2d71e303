// The code of ScheduledActions.md: a credential that refreshes itself five minutes before it
// expires. The harness's token service stands in for the network; a manual clock moves time so
// that the refresh runs at once.

import Coffer
import Foundation

/// The harness's token service: each call hands out a new token, valid for an hour from now.
func fetchToken() async throws -> (token: String, expires: Date) {
    ("refreshed", Date().addingTimeInterval(3_600))
}

struct Credential: Codable, Sendable, Actionable {
    var token: String
    var expires: Date

    var actionItems: [ActionItem] {
        [
            ActionItem(
                identifier: "refresh", date: expires.addingTimeInterval(-300), retryTimeout: 60,
                requiresNetwork: true
            ) { run in
                let fresh = try await fetchToken()  // your network call
                try await run.database.newConnection().readWrite { tx in
                    let credential = Credential(token: fresh.token, expires: fresh.expires)
                    try tx.setObject(credential, forKey: run.key, inCollection: run.collection)
                }
            }
        ]
    }
}

/// Runs the article's blocks in order on a new database in `directory`.
func scheduledActions(in directory: URL) async throws {
    let db = try openDatabase(in: directory, named: "actions")  // harness
    db.registerCodable(Credential.self, forCollection: "credentials")
    try db.register(ActionSchedule(allowedCollections: .only(["credentials"])), withName: "actions")
    let manager = try ActionManager(database: db, schedule: "actions")

    let connection = try db.newConnection()
    try await connection.readWrite { tx in
        let credential = Credential(token: "first", expires: Date().addingTimeInterval(3_600))
        try tx.setObject(credential, forKey: "api", inCollection: "credentials")
    }
    await manager.idle()  // harness
    let before = try await connection.read { tx in  // harness
        try tx.object(forKey: "api", inCollection: "credentials", as: Credential.self)?.token  // harness
    }  // harness
    try expect(before == "first", "no refresh an hour before expiry, got \(before ?? "nil")")  // harness
    await manager.stop()  // harness

    let clock = ManualActionScheduler(now: Date())
    let testManager = try ActionManager(database: db, schedule: "actions", scheduler: clock)
    clock.advance(by: 3_600 - 300)
    await testManager.idle()
    let after = try await connection.read { tx in  // harness
        try tx.object(forKey: "api", inCollection: "credentials", as: Credential.self)?.token  // harness
    }  // harness
    try expect(after == "refreshed", "the credential refreshed itself, got \(after ?? "nil")")  // harness
    await testManager.stop()  // harness
    try await db.close()  // harness
}
