public import Coffer
import Crypto
public import Foundation
public import Logging

/// The flows that create and change a space's membership: create a space (first device),
/// enroll a device (an enrollment file), join from one, and revoke a device (key rotation).
public enum SyncSetup {
    /// Creates a space on the server with `replica`'s database as its first device, and stores
    /// the device's credentials in the database.
    ///
    /// - Parameters:
    ///   - replica: The first device's replica; its database must not belong to a space yet.
    ///   - admin: The admin role's address (it creates the space and the device's role).
    ///   - deviceServer: Where devices connect; defaults to the admin's host, port and database.
    ///   - logger: Where the flow reports what it did (never keys or passwords).
    /// - Returns: The new device's credentials.
    /// - Throws: `SyncError.misuse` when the database already belongs to a space; server errors.
    @discardableResult
    public static func createSpace(
        replica: SyncReplica, admin: SyncServerAddress, deviceServer: SyncServerAddress? = nil,
        logger: Logger = Logger(label: "coffer.sync.setup")
    ) async throws -> SyncDeviceCredentials {
        guard try replica.credentials() == nil else {
            throw SyncError.misuse("this database already belongs to a sync space")
        }
        let spaceID = UUID()
        let key = SyncKey.random(epoch: 1)
        let adminClient = SyncServerAdmin(address: admin, logger: logger)
        try await adminClient.createSpace(
            spaceID: spaceID, keyCheck: SpaceCheck.keyCheck(syncKey: key, spaceID: spaceID),
            channel: SpaceCheck.channel(syncKey: key, spaceID: spaceID))
        let credentials = newDevice(spaceID: spaceID, key: key, server: deviceServer ?? admin)
        try await adminClient.enrollDevice(
            spaceID: spaceID, deviceID: credentials.deviceID, roleName: credentials.username,
            password: credentials.password, publicKey: credentials.deviceKey.publicKey)
        try replica.storeCredentials(credentials)
        logger.info("sync space created", metadata: ["space": "\(spaceID.uuidString)"])
        return credentials
    }

    /// Enrolls a new device from this one: creates its role on the server and returns the
    /// enrollment file (sealed under `passphrase`) to carry to it.
    ///
    /// - Throws: `SyncError.misuse` when this database belongs to no space, or for an empty
    ///   passphrase; server errors.
    public static func enrollDevice(
        from replica: SyncReplica, passphrase: some DataProtocol, parameters: KeyFile.KDFParameters = .default,
        logger: Logger = Logger(label: "coffer.sync.setup")
    ) async throws -> Data {
        let mine = try storedCredentials(replica)
        let credentials = newDevice(spaceID: mine.spaceID, key: mine.syncKey, server: mine.serverAddress)
        let file = try EnrollmentFile.seal(credentials, passphrase: passphrase, parameters: parameters)
        let connection = try await SyncServerConnection.connect(
            to: mine.serverAddress, space: mine.spaceID, logger: logger)
        defer { Task { await connection.close() } }
        try await connection.enroll(
            deviceID: credentials.deviceID, roleName: credentials.username, password: credentials.password,
            publicKey: credentials.deviceKey.publicKey)
        logger.info("sync device enrolled", metadata: ["device": "\(credentials.deviceID.uuidString)"])
        return file
    }

    /// Joins the space of an enrollment file: opens it and stores the credentials in the database.
    ///
    /// - Throws: `SyncError.enrollmentInvalid` (wrong passphrase, damaged); `.misuse` when the
    ///   database already belongs to a space.
    @discardableResult
    public static func join(replica: SyncReplica, enrollmentFile: Data, passphrase: some DataProtocol) throws
        -> SyncDeviceCredentials
    {
        guard try replica.credentials() == nil else {
            throw SyncError.misuse("this database already belongs to a sync space")
        }
        let credentials = try EnrollmentFile.open(enrollmentFile, passphrase: passphrase)
        try replica.storeCredentials(credentials)
        return credentials
    }

    /// Revokes a device, rotating the space's key so that it cannot read what comes next.
    ///
    /// Makes the next epoch's key, seals it to every other live device, re-seals every row of
    /// the space under it (versions kept, new row ids), and replaces the space's rows, key check
    /// and channel and revokes the device's role in one server transaction. This device adopts
    /// the new key at once; the others when they next sync.
    ///
    /// The server refuses the rotation when another device pushed after this one read the
    /// space's rows (they would be lost); this device then reads them again and retries, up to
    /// ``maximumRotationAttempts`` times in all.
    ///
    /// - Throws: `SyncError.tampered` if a stored row does not open (nothing is rotated);
    ///   `.keyEpochChanged` if another device rotated first (sync, then try again);
    ///   `.spaceChanged` if other devices kept pushing through every attempt;
    ///   `.syncKeyMismatch` if this device's key does not open the space; server errors.
    public static func revokeDevice(
        _ deviceID: UUID, from replica: SyncReplica, logger: Logger = Logger(label: "coffer.sync.setup")
    ) async throws {
        try await revokeDevice(deviceID, from: replica, logger: logger, beforeRotating: { _ in })
    }

    /// How many times ``revokeDevice(_:from:logger:)`` reads the space and tries the rotation
    /// while other devices' pushes keep moving the space on.
    public static let maximumRotationAttempts = 5

    /// ``revokeDevice(_:from:logger:)``, calling `beforeRotating` with the attempt's number
    /// (from 1) between reading the space's rows and rotating (tests push from there).
    static func revokeDevice(
        _ deviceID: UUID, from replica: SyncReplica, logger: Logger,
        beforeRotating: (_ attempt: Int) async throws -> Void
    ) async throws {
        let mine = try storedCredentials(replica)
        let connection = try await SyncServerConnection.connect(
            to: mine.serverAddress, space: mine.spaceID, logger: logger)
        defer { Task { await connection.close() } }
        let next = SyncKey.random(epoch: mine.syncKey.epoch + 1)
        let newSealer = RowSealer(syncKey: next, spaceID: mine.spaceID)
        var attempt = 1
        while true {
            let (rows, pulledThrough) = try await resealedRows(
                connection, credentials: mine, newSealer: newSealer)
            var sealedKeys: [UUID: Data] = [:]
            for device in try await connection.devices() where !device.revoked && device.deviceID != deviceID {
                sealedKeys[device.deviceID] = try SyncKeySealing.seal(
                    next, to: device.publicKey, spaceID: mine.spaceID, deviceID: device.deviceID)
            }
            try await beforeRotating(attempt)
            do {
                try await connection.rotate(
                    newEpoch: next.epoch, pulledThrough: pulledThrough,
                    keyCheck: SpaceCheck.keyCheck(syncKey: next, spaceID: mine.spaceID),
                    channel: SpaceCheck.channel(syncKey: next, spaceID: mine.spaceID), sealedKeys: sealedKeys,
                    rows: rows, revoking: deviceID)
            } catch SyncError.spaceChanged(let space, let pulled, let current) where attempt < maximumRotationAttempts {
                logger.info(
                    "rotation refused: the space gained rows meanwhile; reading it again",
                    metadata: [
                        "space": "\(space.uuidString)", "pulled_through": "\(pulled)", "current": "\(current)",
                        "attempt": "\(attempt)",
                    ])
                attempt += 1
                continue
            }
            var updated = mine
            updated.syncKey = next
            try replica.adoptEpoch(updated, sealer: newSealer)
            logger.notice(
                "sync device revoked; key rotated",
                metadata: ["device": "\(deviceID.uuidString)", "epoch": "\(next.epoch)", "rows": "\(rows.count)"])
            return
        }
    }

    /// Every row of the space opened under the current key and sealed under `newSealer`'s
    /// (versions kept, this device as uploader), and the sequence number they were read through.
    private static func resealedRows(
        _ connection: SyncServerConnection, credentials mine: SyncDeviceCredentials, newSealer: RowSealer
    ) async throws -> (rows: [ServerRow], pulledThrough: Int64) {
        let space = try await connection.space()
        guard space.keyEpoch == mine.syncKey.epoch else {
            throw SyncError.keyEpochChanged(space: mine.spaceID, expected: mine.syncKey.epoch, current: space.keyEpoch)
        }
        guard SpaceCheck.matches(space.keyCheck, syncKey: mine.syncKey, spaceID: mine.spaceID) else {
            throw SyncError.syncKeyMismatch(space: mine.spaceID, epoch: space.keyEpoch)
        }
        let oldSealer = RowSealer(syncKey: mine.syncKey, spaceID: mine.spaceID)
        // By row id: a row rewritten while the pages are read shows up twice, newest last.
        var latest: [Data: ServerRow] = [:]
        var order: [Data] = []
        var cursor: Int64 = 0
        while true {
            let page = try await connection.pull(after: cursor, limit: 1_000)
            guard let last = page.last else { break }
            cursor = last.sequence
            for row in page {
                let pulled = try PulledRow(row)
                let record = try oldSealer.open(pulled.row)
                if latest[row.rowID] == nil { order.append(row.rowID) }
                latest[row.rowID] = ServerRow(try newSealer.seal(record, version: row.version, deviceID: mine.deviceID))
            }
        }
        // Pages read after `space()` may hold rows pushed since; what was read is then
        // through the last of them.
        return (order.compactMap { latest[$0] }, max(space.lastSequence, cursor))
    }

    static func storedCredentials(_ replica: SyncReplica) throws -> SyncDeviceCredentials {
        guard let credentials = try replica.credentials() else {
            throw SyncError.misuse("this database has not created or joined a sync space")
        }
        return credentials
    }

    /// A new device's identity, role and password for `spaceID`.
    static func newDevice(spaceID: UUID, key: SyncKey, server: SyncServerAddress) -> SyncDeviceCredentials {
        let deviceID = UUID()
        return SyncDeviceCredentials(
            spaceID: spaceID, deviceID: deviceID, syncKey: key, deviceKey: .generate(), host: server.host,
            port: server.port, database: server.database,
            username: "coffer_d_" + deviceID.bytes.hexString, password: randomPassword(), requiresTLS: server.tls)
    }

    /// 32 characters of [A-Za-z0-9] from the secure random source (printable ASCII, as the
    /// server's SCRAM verifier expects).
    static func randomPassword() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var password: [Character] = []
        while password.count < 32 {
            let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            // Bytes of 248 and above are dropped, so every character is equally likely.
            for byte in bytes where byte < 248 && password.count < 32 {
                password.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(password)
    }
}
