import Coffer
import Foundation
import PostgresNIO
import Testing

@testable import CofferSync

extension EngineEndToEndTests {
    /// A server that serves again an older, genuine version of a row a device already holds newer
    /// (its ciphertext saved from the server itself, renumbered as a new change) is caught: the
    /// device refuses the row as a rollback, reports it, keeps the newer value and moves on.
    @Test func anOlderGenuineVersionServedAgainIsRefusedAsARollback() async throws {
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        let engines = try await started(a, b)
        let (engineA, engineB) = (engines[0], engines[1])
        try a.set("first", "k")
        try await engineA.syncNow()
        try await engineB.syncNow()
        #expect(try b.note("k") == Note(text: "first"))

        let credentials = try #require(try a.replica.credentials())
        let space = credentials.spaceID
        let row = RowID(collection: "notes", key: "k", syncKey: credentials.syncKey)
        let rowID = row.bytes
        let logger = logger
        let firstVersion = try await SyncTestServer.withRawConnection(try admin) { connection in
            let rows = try await connection.query(
                "SELECT ciphertext, device_id FROM coffer_sync.rows WHERE space_id = \(space) AND row_id = \(rowID)",
                logger: logger)
            var saved: [(Data, UUID)] = []
            for try await row in rows.decode((Data, UUID).self) { saved.append(row) }
            return try #require(saved.first.map { SavedRow(ciphertext: $0.0, device: $0.1) })
        }

        try a.set("second", "k")
        try await engineA.syncNow()
        try await engineB.syncNow()
        #expect(try b.note("k") == Note(text: "second"))

        try await SyncTestServer.withRawConnection(try admin) { connection in
            try await connection.query(
                """
                WITH next AS (
                    UPDATE coffer_sync.spaces SET last_seq = last_seq + 1 WHERE space_id = \(space) RETURNING last_seq)
                UPDATE coffer_sync.rows SET ciphertext = \(firstVersion.ciphertext), version = 1,
                    device_id = \(firstVersion.device), seq = (SELECT last_seq FROM next)
                WHERE space_id = \(space) AND row_id = \(rowID)
                """, logger: logger)
        }
        try await engineB.syncNow()
        let status = await engineB.currentStatus()
        #expect(status.rejectedRows == 1)
        #expect(status.lastRejection == .rollbackDetected(rowID: row.description, held: 2, served: 1))
        #expect(try b.note("k") == Note(text: "second"))
        #expect(status.cursor == status.serverSequence, "the cursor moves past a refused row")
        await engineA.stop()
        await engineB.stop()
        try await drop(a)
    }
}

/// A row's ciphertext and uploader as the server held them.
private struct SavedRow: Sendable {
    let ciphertext: Data
    let device: UUID
}
