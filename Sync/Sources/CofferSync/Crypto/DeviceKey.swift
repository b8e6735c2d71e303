import Crypto
public import Foundation

/// A device's Curve25519 key-agreement key pair: the space's sync key of each epoch is sealed to
/// its public half (on the server, in `space_keys`), and only the private half opens it.
public struct DeviceKey: Sendable, CustomStringConvertible {
    let privateKey: Curve25519.KeyAgreement.PrivateKey

    /// A fresh key pair.
    public static func generate() -> DeviceKey {
        DeviceKey(privateKey: Curve25519.KeyAgreement.PrivateKey())
    }

    init(privateKey: Curve25519.KeyAgreement.PrivateKey) { self.privateKey = privateKey }

    /// A key pair from the 32 bytes of its private key.
    ///
    /// - Throws: `SyncError.enrollmentInvalid` when the bytes are not a Curve25519 private key.
    public init(privateKeyBytes: some ContiguousBytes) throws(SyncError) {
        do {
            privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes)
        } catch {
            throw SyncError.enrollmentInvalid(reason: "the device key is not a Curve25519 key")
        }
    }

    /// The public key, as the server stores it (32 bytes).
    public var publicKey: Data { privateKey.publicKey.rawRepresentation }

    /// The private key's bytes, for the device's own encrypted store.
    var privateKeyBytes: Data { privateKey.rawRepresentation }

    /// `DeviceKey(public 0a1b2c3d…)`: never the private half.
    public var description: String { "DeviceKey(public \(publicKey.prefix(4).hexString)…)" }
}

/// Seals a space's sync key to one device's public key with HPKE (RFC 9180, X25519, HKDF-SHA256,
/// ChaCha20-Poly1305, base mode), binding the space, the epoch and the device.
public enum SyncKeySealing {
    static let ciphersuite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    /// `syncKey` sealed to `publicKey`, for `deviceID` of `spaceID`: the encapsulated key (32 bytes)
    /// followed by the ciphertext.
    ///
    /// - Throws: `SyncError.misuse` when `publicKey` is not a Curve25519 public key.
    public static func seal(_ syncKey: SyncKey, to publicKey: Data, spaceID: UUID, deviceID: UUID) throws(SyncError)
        -> Data
    {
        do {
            let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey)
            var sender = try HPKE.Sender(
                recipientKey: recipient, ciphersuite: ciphersuite,
                info: info(spaceID: spaceID, deviceID: deviceID, epoch: syncKey.epoch))
            let ciphertext = try syncKey.withUnsafeBytes { try sender.seal(Data($0)) }
            return sender.encapsulatedKey + ciphertext
        } catch {
            throw SyncError.misuse("a device's public key is not a Curve25519 key")
        }
    }

    /// Opens a sealed sync key of `epoch` with this device's private key.
    ///
    /// - Throws: `SyncError.syncKeyMismatch` when it does not open (sealed to another device,
    ///   another space or epoch, or damaged).
    public static func open(
        _ sealed: Data, with deviceKey: DeviceKey, spaceID: UUID, deviceID: UUID, epoch: Int
    ) throws(SyncError) -> SyncKey {
        let encapsulatedCount = 32
        guard sealed.count > encapsulatedCount else { throw SyncError.syncKeyMismatch(space: spaceID, epoch: epoch) }
        do {
            var recipient = try HPKE.Recipient(
                privateKey: deviceKey.privateKey, ciphersuite: ciphersuite,
                info: info(spaceID: spaceID, deviceID: deviceID, epoch: epoch),
                encapsulatedKey: Data(sealed.prefix(encapsulatedCount)))
            let bytes = try recipient.open(Data(sealed.dropFirst(encapsulatedCount)))
            return try SyncKey(bytes: bytes, epoch: epoch)
        } catch {
            throw SyncError.syncKeyMismatch(space: spaceID, epoch: epoch)
        }
    }

    static func info(spaceID: UUID, deviceID: UUID, epoch: Int) -> Data {
        var writer = ByteWriter()
        writer.append(raw: Data("coffer-sync key v1".utf8))
        writer.append(spaceID)
        writer.append(deviceID)
        writer.append(UInt32(truncatingIfNeeded: epoch))
        return writer.data
    }
}
