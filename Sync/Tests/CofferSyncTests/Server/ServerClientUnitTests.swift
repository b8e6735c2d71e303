import Crypto
import Foundation
import Testing

@testable import CofferSync

/// The client's pure parts, without a server: push planning, SCRAM verifiers, addresses,
/// error mapping.
@Suite struct ServerClientUnitTests {
    private let device = UUID()

    @Test func pushPlanDecidesInRequestOrder() {
        let plan = PushPlan(
            requests: [
                PushRequest(row: testRow(1, version: 3, device: device), baseVersion: 2),
                PushRequest(row: testRow(2, version: 1, device: device), baseVersion: 0),
                PushRequest(row: testRow(1, version: 4, device: device), baseVersion: 3),
                PushRequest(row: testRow(3, version: 2, device: device), baseVersion: 1),
                PushRequest(row: testRow(2, version: 1, device: device), baseVersion: 0),
            ],
            storedVersions: [testRowID(1): 2, testRowID(3): 5],
            lastSequence: 40
        )
        var second = testRow(2, version: 1, device: device)
        second.sequence = 42
        #expect(
            plan.decisions == [
                .accepted(sequence: 41), .accepted(sequence: 42), .accepted(sequence: 43),
                .conflictWithStored(rowID: testRowID(3)), .conflictWith(second),
            ]
        )
        #expect(plan.lastSequence == 43)
        #expect(plan.writes.map(\.rowID) == [testRowID(1), testRowID(2)])
        #expect(plan.writes.map(\.version) == [4, 1])
        #expect(plan.writes.map(\.sequence) == [43, 42])
        #expect(plan.storedConflictIDs == [testRowID(3)])
    }

    @Test func pushValidationRefusesWhatTheServerWould() {
        let good = PushRequest(row: testRow(1, version: 1, device: device), baseVersion: 0)
        #expect(throws: Never.self) { try PushPlan.validate([good]) }
        var wrongVersion = good
        wrongVersion.row.version = 2
        var shortID = good
        shortID.row.rowID = Data(count: 16)
        var badEpoch = good
        badEpoch.row.keyEpoch = 0
        for request in [wrongVersion, shortID, badEpoch] {
            #expect(throws: SyncError.self) { try PushPlan.validate([request]) }
        }
    }

    @Test func pbkdf2MatchesAPublishedVector() {
        let key = ScramVerifier.saltedPassword(Data("password".utf8), salt: Data("salt".utf8), iterations: 4096)
        let hex = key.withUnsafeBytes { Data($0) }.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a")
    }

    @Test func scramVerifierHasPostgresFormat() throws {
        let salt = Data(repeating: 7, count: 16)
        let verifier = try ScramVerifier.verifier(password: "pencil", salt: salt)
        let parts = verifier.split(separator: "$")
        #expect(parts.count == 3)
        #expect(parts[0] == "SCRAM-SHA-256")
        #expect(parts[1] == "4096:\(salt.base64EncodedString())")
        let keys = parts[2].split(separator: ":").compactMap { Data(base64Encoded: String($0)) }
        #expect(keys.map(\.count) == [32, 32])
        #expect(try ScramVerifier.verifier(password: "pencil") != ScramVerifier.verifier(password: "pencil"))
        #expect(throws: SyncError.self) { try ScramVerifier.verifier(password: "") }
        #expect(throws: SyncError.self) { try ScramVerifier.verifier(password: "naïve") }
    }

    @Test func addressParsesURLsAndNeverShowsThePassword() throws {
        let address = try SyncServerAddress(url: "postgres://dev%40ice:s3cr%2Ft@db.example:6543/sync?sslmode=require")
        #expect(
            address
                == SyncServerAddress(
                    host: "db.example", port: 6543, database: "sync", username: "dev@ice", password: "s3cr/t", tls: true
                ))
        for text in [
            "\(address)", String(reflecting: address),
            {
                var out = ""; dump(address, to: &out); return out
            }(),
        ] {
            #expect(!text.contains("s3cr"), "\(text)")
        }
        #expect("\(address)".contains("db.example:6543"))
        let separate = try SyncServerAddress(url: "postgresql://admin@127.0.0.1/coffer", password: "pw")
        #expect(separate.port == 5432 && separate.password == "pw" && !separate.tls)
        for bad in ["http://a@b/c", "postgres://b/c", "postgres://a@b", "postgres://a@/c"] {
            #expect(throws: SyncError.self, "\(bad)") { try SyncServerAddress(url: bad) }
        }
        let decoded = try JSONDecoder().decode(SyncServerAddress.self, from: JSONEncoder().encode(address))
        #expect(decoded == address)
    }

    @Test func serverErrorsMapBySQLState() {
        let space = UUID()
        let errors = ServerErrors(server: "h:1", space: space)
        #expect(
            errors.mapServer(state: "28P01", message: "Passwort-Authentifizierung", detail: nil)
                == .authenticationFailed(server: "h:1", reason: "SQLSTATE 28P01: Passwort-Authentifizierung"))
        // Revocation (a NOLOGIN role) is told by the routine that refused the login, in any
        // language; the same SQLSTATE from pg_hba.conf's refusal is not revocation.
        #expect(
            errors.mapServer(
                state: "28000", message: "Rolle »x« darf sich nicht anmelden", detail: nil,
                routine: "InitializeSessionUserId")
                == .deviceRevoked(server: "h:1")
        )
        #expect(
            errors.mapServer(
                state: "28000", message: "role \"x\" is not permitted to log in", detail: nil,
                routine: "ClientAuthentication")
                == .authenticationFailed(server: "h:1", reason: "SQLSTATE 28000: role \"x\" is not permitted to log in")
        )
        #expect(
            errors.mapServer(state: "28000", message: "role \"x\" is not permitted to log in", detail: nil)
                != .deviceRevoked(server: "h:1"))
        for state in ["42P01", "42883", "3F000", "3D000"] {
            #expect(
                errors.mapServer(state: state, message: "", detail: nil)
                    == .schemaVersionMismatch(expected: 1, found: nil))
        }
        #expect(
            errors.mapServer(state: "CS001", message: "", detail: "7") == .schemaVersionMismatch(expected: 1, found: 7))
        #expect(errors.mapServer(state: "CS002", message: "", detail: nil) == .spaceNotFound(space: space))
        #expect(errors.mapServer(state: "42501", message: "", detail: nil) == .spaceNotFound(space: space))
        #expect(
            errors.mapServer(state: "57P01", message: "terminating", detail: nil)
                == .serverUnreachable(server: "h:1", reason: "SQLSTATE 57P01: terminating"))
        #expect(
            errors.mapServer(state: "23505", message: "duplicate", detail: "Key (row_id)=(\\x01)")
                == .server(code: "23505", message: "duplicate (h:1)"))
        #expect(
            "\(SyncError.authenticationFailed(server: "h:1", reason: "SQLSTATE 08P01: SASL authentication failed").localizedDescription)"
                .contains("08P01"))
    }

    @Test func deadlocksAndSerializationFailuresAreTransientByCode() {
        #expect(ServerErrors.transientStates == ["40P01", "40001"])
        #expect(!ServerErrors.isTransient(SyncError.server(code: "40P01", message: "")))
        #expect(!ServerErrors.isTransient(CancellationError()))
        for attempt in 1...SyncServerConnection.maximumPushAttempts {
            let pause = SyncServerConnection.pushRetryPause(attempt: attempt)
            let ceiling = Duration.milliseconds(20 << (attempt - 1))
            #expect(pause >= ceiling / 2 && pause <= ceiling, "attempt \(attempt): \(pause)")
        }
    }

    @Test func listenerBackoffGrowsToItsCap() {
        let address = SyncServerAddress(host: "h", database: "d", username: "u", password: "p")
        let listener = SyncServerListener(address: address, channel: "coffer_00", maximumBackoff: .seconds(1))
        #expect(listener.backoff(afterFailures: 1) >= .milliseconds(50))
        #expect(listener.backoff(afterFailures: 1) <= .milliseconds(63))
        #expect(listener.backoff(afterFailures: 3) >= .milliseconds(200))
        #expect(listener.backoff(afterFailures: 40) >= .seconds(1))
        #expect(listener.backoff(afterFailures: 40) <= .milliseconds(1250))
    }

    /// Rows are written a chunk of at most `statementBytes` of ciphertext per statement (past
    /// each chunk's first row), in order, none lost; one row larger than that goes alone.
    @Test func rowWritesAreCutByBytes() {
        let budget = RowWriter.statementBytes
        let sizes = [budget / 2, budget / 2, 1, budget + 1, 10, budget - 10, 11]
        let rows = sizes.enumerated().map { index, size in
            ServerRow(
                rowID: testRowID(UInt8(index)), version: 1, deviceID: device, deleted: false, keyEpoch: 1,
                ciphertext: Data(count: size))
        }
        let chunks = RowWriter.chunks(rows)
        #expect(
            chunks.map { $0.map(\.ciphertext.count) } == [
                [budget / 2, budget / 2], [1], [budget + 1], [10, budget - 10], [11],
            ])
        #expect(chunks.flatMap { $0 } == rows)
        #expect(RowWriter.chunks([]).isEmpty)
    }
}
