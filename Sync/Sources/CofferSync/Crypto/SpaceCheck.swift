import Crypto
public import Foundation

/// What the server stores in clear to let devices check their key and find their channel,
/// derived so that neither reveals the key.
public enum SpaceCheck {
    /// The key check of `spaceID` under `syncKey`: HMAC(check key, space id ‖ epoch), which the
    /// server stores so a device with the wrong key stops before writing anything.
    public static func keyCheck(syncKey: SyncKey, spaceID: UUID) -> Data {
        var message = ByteWriter()
        message.append(spaceID)
        message.append(UInt32(truncatingIfNeeded: syncKey.epoch))
        return Data(HMAC<SHA256>.authenticationCode(for: message.data, using: syncKey.subkeys.check))
    }

    /// Whether `stored` is the key check of `spaceID` under `syncKey` (compared in constant time).
    public static func matches(_ stored: Data, syncKey: SyncKey, spaceID: UUID) -> Bool {
        var message = ByteWriter()
        message.append(spaceID)
        message.append(UInt32(truncatingIfNeeded: syncKey.epoch))
        return HMAC<SHA256>.isValidAuthenticationCode(
            stored, authenticating: message.data, using: syncKey.subkeys.check)
    }

    /// The LISTEN/NOTIFY channel of `spaceID` for this epoch: `coffer_` and 32 hex digits of a
    /// keyed hash, so the name links to no space id without the key.
    public static func channel(syncKey: SyncKey, spaceID: UUID) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: spaceID.bytes, using: syncKey.subkeys.channel)
        return "coffer_" + Data(mac).prefix(16).hexString
    }
}
