public import Foundation

/// Everything one device needs to sync one space: its identity, keys and server login.
///
/// Kept in the device's own encrypted database, carried to a new device in an enrollment file,
/// and never sent anywhere else.
public struct SyncDeviceCredentials: Sendable, CustomStringConvertible {
    /// The space the device syncs.
    public var spaceID: UUID
    /// The device's id (its row in the server's `devices`).
    public var deviceID: UUID
    /// The sync key of the current epoch.
    public var syncKey: SyncKey
    /// The device's key-agreement key pair.
    public var deviceKey: DeviceKey
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The PostgreSQL database holding the `coffer_sync` schema.
    public var database: String
    /// The device's PostgreSQL role.
    public var username: String
    /// The role's password.
    public var password: String
    /// Whether the connection must use TLS.
    public var requiresTLS: Bool

    /// Gathers a device's credentials.
    public init(
        spaceID: UUID, deviceID: UUID, syncKey: SyncKey, deviceKey: DeviceKey, host: String, port: Int,
        database: String, username: String, password: String, requiresTLS: Bool
    ) {
        self.spaceID = spaceID
        self.deviceID = deviceID
        self.syncKey = syncKey
        self.deviceKey = deviceKey
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.requiresTLS = requiresTLS
    }

    /// Names the space, device and server; never a key or the password.
    public var description: String {
        "SyncDeviceCredentials(space \(spaceID.uuidString), device \(deviceID.uuidString), "
            + "\(username)@\(host):\(port)/\(database), epoch \(syncKey.epoch))"
    }

    static let formatTag: UInt8 = 1

    /// A binary record of every field (secrets included): only ever sealed.
    func encoded() -> Data {
        var writer = ByteWriter()
        writer.append(Self.formatTag)
        writer.append(spaceID)
        writer.append(deviceID)
        writer.append(UInt32(truncatingIfNeeded: syncKey.epoch))
        syncKey.withUnsafeBytes { writer.append(raw: $0) }
        writer.append(prefixed: deviceKey.privateKeyBytes)
        writer.append(prefixed: host)
        writer.append(UInt32(truncatingIfNeeded: port))
        writer.append(prefixed: database)
        writer.append(prefixed: username)
        writer.append(prefixed: password)
        writer.append(UInt8(requiresTLS ? 1 : 0))
        return writer.data
    }

    /// Parses ``encoded()``; nil for anything malformed.
    init?(decoding data: Data) {
        var reader = ByteReader(data)
        guard reader.byte() == Self.formatTag, let spaceID = reader.uuid(), let deviceID = reader.uuid(),
            let epoch = reader.uint32(), let keyBytes = reader.bytes(SyncKey.byteCount),
            let syncKey = try? SyncKey(bytes: keyBytes, epoch: Int(epoch)),
            let privateBytes = reader.prefixed(), let deviceKey = try? DeviceKey(privateKeyBytes: Data(privateBytes)),
            let host = reader.prefixedString(), let port = reader.uint32(), let database = reader.prefixedString(),
            let username = reader.prefixedString(), let password = reader.prefixedString(), let tls = reader.byte(),
            tls <= 1, reader.isAtEnd
        else { return nil }
        self.init(
            spaceID: spaceID, deviceID: deviceID, syncKey: syncKey, deviceKey: deviceKey, host: host, port: Int(port),
            database: database, username: username, password: password, requiresTLS: tls == 1)
    }
}
