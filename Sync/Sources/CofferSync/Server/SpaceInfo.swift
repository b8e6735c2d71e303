public import Foundation

/// What the server records about a sync space: read by a device on connect and after a
/// notification that the key epoch may have changed.
public struct SpaceInfo: Sendable, Hashable {
    /// The space's id.
    public var spaceID: UUID
    /// The current key epoch (1 for the first sync key; a rotation adds one).
    public var keyEpoch: Int
    /// The keyed hash a device checks its sync key against before writing (DESIGN.md).
    public var keyCheck: Data
    /// The LISTEN/NOTIFY channel pushes to this space notify.
    public var channel: String
    /// The highest sequence number assigned in the space.
    public var lastSequence: Int64

    /// Describes a space.
    public init(spaceID: UUID, keyEpoch: Int, keyCheck: Data, channel: String, lastSequence: Int64) {
        self.spaceID = spaceID
        self.keyEpoch = keyEpoch
        self.keyCheck = keyCheck
        self.channel = channel
        self.lastSequence = lastSequence
    }
}

/// A device of a space as the server records it: who may log in, and the public key its sync
/// keys are sealed to.
public struct DeviceRecord: Sendable, Hashable {
    /// The device's id.
    public var deviceID: UUID
    /// The PostgreSQL role the device logs in with.
    public var roleName: String
    /// The device's key-agreement public key.
    public var publicKey: Data
    /// Whether the device was revoked (its role may no longer log in).
    public var revoked: Bool

    /// Describes a device.
    public init(deviceID: UUID, roleName: String, publicKey: Data, revoked: Bool) {
        self.deviceID = deviceID
        self.roleName = roleName
        self.publicKey = publicKey
        self.revoked = revoked
    }
}
