import Foundation
import PostgresNIO
import Testing

@testable import CofferSync

/// The shipped schema: embedded equal to its file, split correctly, applied idempotently, and
/// refused at another version.
@Suite struct ServerSchemaTests {
    private static let schemaFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("schema/coffer-sync.sql")

    @Test func embeddedSchemaEqualsTheShippedFile() throws {
        let file = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        #expect(ServerSchema.sql + "\n" == file, "schema/coffer-sync.sql changed: run `bash Sync/schema/embed.sh`")
    }

    @Test func scriptSplitsAtTopLevelSemicolonsOnly() {
        let statements = SQLScript.statements(
            """
            -- a comment; with a semicolon
            CREATE TABLE t (a text DEFAULT 'x;''y');
            /* block; comment */ SELECT "odd;name" FROM t;
            CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $fn$ SELECT 1; SELECT $1 $fn$;
            SELECT $1;
            -- trailing comment
            """
        )
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix("DEFAULT 'x;''y')"))
        #expect(statements[2].hasSuffix("$fn$ SELECT 1; SELECT $1 $fn$"))
        #expect(statements[3].trimmingCharacters(in: .whitespacesAndNewlines) == "SELECT $1")
    }

    @Test func shippedSchemaSplitsIntoWholeStatements() {
        let statements = SQLScript.statements(ServerSchema.sql)
        #expect(statements.count > 30)
        let functions = statements.filter { $0.contains("CREATE OR REPLACE FUNCTION") }
        #expect(functions.count == 7)
        #expect(functions.allSatisfy { $0.hasSuffix("$fn$") })
    }

    /// In a database of its own: re-applying locks the tables other tests are using.
    @Test(serverAvailable) func schemaAppliesTwiceAndReportsItsVersion() async throws {
        try await SyncTestServer.withScratchDatabase { (address: SyncServerAddress) async throws in
            let admin = SyncServerAdmin(address: address)
            #expect(try await admin.schemaVersion() == nil)
            #expect(try await admin.initServer() == 1)
            #expect(try await admin.initServer() == 1)
            #expect(try await admin.schemaVersion() == 1)
        }
    }

    /// In a database of its own, so that changing its recorded version disturbs no other test.
    @Test(serverAvailable) func otherSchemaVersionIsRefusedByClientAndInit() async throws {
        try await SyncTestServer.withScratchDatabase { otherAddress in
            let admin = SyncServerAdmin(address: otherAddress)
            try await SyncTestServer.withSpace { server in
                // A device (roles span the cluster) of a space in the main database finds no schema here.
                var device = server.devices[0].address
                device.database = otherAddress.database
                await #expect(throws: SyncError.schemaVersionMismatch(expected: 1, found: nil)) {
                    try await SyncServerConnection.connect(to: device, space: server.spaceID)
                }
                try await admin.initServer()
                try await SyncTestServer.withRawConnection(otherAddress) { connection in
                    try await connection.query(
                        "UPDATE coffer_sync.meta SET value = '2' WHERE key = 'schema_version'",
                        logger: .init(label: "t")
                    ).collect()
                }
                await #expect(throws: SyncError.schemaVersionMismatch(expected: 1, found: 2)) {
                    try await SyncServerConnection.connect(to: device, space: server.spaceID)
                }
                await #expect(throws: SyncError.schemaVersionMismatch(expected: 1, found: 2)) {
                    try await admin.initServer()
                }
            }
        }
    }
}
