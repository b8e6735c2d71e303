import Coffer
import Foundation
import Testing

@testable import CofferSync

/// Row ids, sealing and opening rows (every tamper case), key checks, key sealing to a device,
/// and enrollment files: all without a server.
@Suite struct CryptoTests {
    let space = UUID()
    let device = UUID()
    let key = SyncKey.random(epoch: 1)
    var sealer: RowSealer { RowSealer(syncKey: key, spaceID: space) }

    func record(_ key: String = "k1", object: String? = "value", collection: String = "notes") -> RowRecord {
        RowRecord(
            collection: collection, key: key, object: object.map { Data($0.utf8) }, metadata: Data("m".utf8),
            timestamp: HybridTimestamp(physical: 1_000, counter: 2, device: device))
    }

    func expectTampered(_ row: SealedRow, with sealer: RowSealer? = nil) {
        #expect {
            _ = try (sealer ?? self.sealer).open(row)
        } throws: { error in
            guard case SyncError.tampered = error else { return false }
            return true
        }
    }

    @Test func rowIDsAreKeyedAndUnambiguous() throws {
        let a = RowID(collection: "ab", key: "c", syncKey: key)
        #expect(a.bytes.count == 32)
        #expect(a == RowID(collection: "ab", key: "c", syncKey: key))
        #expect(a != RowID(collection: "a", key: "bc", syncKey: key))
        #expect(a != RowID(collection: "ab", key: "c", syncKey: .random(epoch: 1)))
        #expect(throws: SyncError.self) { try RowID(bytes: Data(count: 31)) }
    }

    @Test func sealAndOpenRoundTrip() throws {
        let original = record()
        let sealed = try sealer.seal(original, version: 3, deviceID: device)
        #expect(sealed.rowID == sealer.rowID(collection: "notes", key: "k1"))
        #expect(!sealed.deleted && sealed.keyEpoch == 1 && sealed.version == 3)
        #expect(try sealer.open(sealed) == original)
        let tombstone = record(object: nil)
        let sealedTombstone = try sealer.seal(tombstone, version: 4, deviceID: device)
        #expect(sealedTombstone.deleted)
        #expect(try sealer.open(sealedTombstone) == tombstone)
        #expect(try sealer.open(sealedTombstone).metadata == nil)
    }

    @Test func ciphertextNeverContainsTheClearValue() throws {
        let canary = "canary-3f9a1c"
        let sealed = try sealer.seal(record(canary, object: canary), version: 1, deviceID: device)
        #expect(sealed.ciphertext.range(of: Data(canary.utf8)) == nil)
    }

    @Test func flippedCiphertextByteIsTampered() throws {
        let sealed = try sealer.seal(record(), version: 1, deviceID: device)
        for index in [0, 12, sealed.ciphertext.count / 2, sealed.ciphertext.count - 1] {
            var flipped = sealed
            flipped.ciphertext[flipped.ciphertext.startIndex + index] ^= 0x01
            expectTampered(flipped)
        }
        var truncated = sealed
        truncated.ciphertext = Data(sealed.ciphertext.prefix(10))
        expectTampered(truncated)
    }

    @Test func rowSwappedBetweenIDsIsTampered() throws {
        let one = try sealer.seal(record("k1"), version: 1, deviceID: device)
        let two = try sealer.seal(record("k2"), version: 1, deviceID: device)
        var swapped = one
        swapped.ciphertext = two.ciphertext
        expectTampered(swapped)
        var relabelled = two
        relabelled.rowID = one.rowID
        expectTampered(relabelled)
    }

    @Test func versionRelabelledIsTampered() throws {
        var sealed = try sealer.seal(record(), version: 1, deviceID: device)
        sealed.version = 2
        expectTampered(sealed)
        sealed.version = 0
        expectTampered(sealed)
    }

    @Test func movedToAnotherSpaceIsTampered() throws {
        let sealed = try sealer.seal(record(), version: 1, deviceID: device)
        expectTampered(sealed, with: RowSealer(syncKey: key, spaceID: UUID()))
    }

    @Test func otherDeviceIDIsTampered() throws {
        var sealed = try sealer.seal(record(), version: 1, deviceID: device)
        sealed.deviceID = UUID()
        expectTampered(sealed)
    }

    @Test func deletedFlagAndEpochAreBound() throws {
        var sealed = try sealer.seal(record(), version: 1, deviceID: device)
        sealed.deleted = true
        expectTampered(sealed)
        sealed.deleted = false
        sealed.keyEpoch = 2
        expectTampered(sealed)
        let otherKey = try SyncKey(bytes: Data(repeating: 7, count: 32), epoch: 1)
        expectTampered(try RowSealer(syncKey: otherKey, spaceID: space).seal(record(), version: 1, deviceID: device))
    }

    @Test func keyCheckAndChannel() throws {
        let check = SpaceCheck.keyCheck(syncKey: key, spaceID: space)
        #expect(SpaceCheck.matches(check, syncKey: key, spaceID: space))
        #expect(!SpaceCheck.matches(check, syncKey: .random(epoch: 1), spaceID: space))
        #expect(!SpaceCheck.matches(check, syncKey: key, spaceID: UUID()))
        let sameBytesNextEpoch = key.withUnsafeBytes { try? SyncKey(bytes: Data($0), epoch: 2) }
        #expect(sameBytesNextEpoch.map { SpaceCheck.matches(check, syncKey: $0, spaceID: space) } == false)
        let channel = SpaceCheck.channel(syncKey: key, spaceID: space)
        #expect(channel.hasPrefix("coffer_") && channel.count == 39)
        #expect(!channel.contains(space.uuidString.lowercased()))
    }

    @Test func keysNeverPrint() throws {
        let bytes = Data(repeating: 0xAB, count: 32)
        let syncKey = try SyncKey(bytes: bytes, epoch: 4)
        #expect(!"\(syncKey)".contains("ab"))
        #expect(!String(reflecting: syncKey).contains("abab"))
        let device = DeviceKey.generate()
        #expect(!"\(device)".contains(device.privateKeyBytes.hexString))
    }

    @Test func sealedSyncKeyOpensOnlyForItsDevice() throws {
        let deviceKey = DeviceKey.generate()
        let sealed = try SyncKeySealing.seal(key, to: deviceKey.publicKey, spaceID: space, deviceID: device)
        let opened = try SyncKeySealing.open(sealed, with: deviceKey, spaceID: space, deviceID: device, epoch: 1)
        #expect(SpaceCheck.matches(SpaceCheck.keyCheck(syncKey: key, spaceID: space), syncKey: opened, spaceID: space))
        #expect(throws: SyncError.syncKeyMismatch(space: space, epoch: 1)) {
            try SyncKeySealing.open(sealed, with: .generate(), spaceID: space, deviceID: device, epoch: 1)
        }
        #expect(throws: SyncError.self) {
            try SyncKeySealing.open(sealed, with: deviceKey, spaceID: space, deviceID: UUID(), epoch: 1)
        }
        #expect(throws: SyncError.self) {
            try SyncKeySealing.open(sealed, with: deviceKey, spaceID: space, deviceID: device, epoch: 2)
        }
        #expect(throws: SyncError.self) {
            try SyncKeySealing.seal(key, to: Data(count: 5), spaceID: space, deviceID: device)
        }
    }

    static let cheap = KeyFile.KDFParameters.scrypt(n: 1 << 10, r: 8, p: 1)

    func credentials() -> SyncDeviceCredentials {
        SyncDeviceCredentials(
            spaceID: space, deviceID: device, syncKey: key, deviceKey: .generate(), host: "127.0.0.1", port: 5432,
            database: "coffer", username: "coffer_device_1", password: "role-secret-42", requiresTLS: false)
    }

    @Test func enrollmentFileRoundTrip() throws {
        let original = credentials()
        let file = try EnrollmentFile.seal(original, passphrase: Data("tulip ladder".utf8), parameters: Self.cheap)
        #expect(file.range(of: Data("role-secret-42".utf8)) == nil)
        let opened = try EnrollmentFile.open(file, passphrase: Data("tulip ladder".utf8))
        #expect(opened.spaceID == original.spaceID && opened.deviceID == original.deviceID)
        #expect(opened.password == "role-secret-42" && opened.username == "coffer_device_1" && opened.port == 5432)
        #expect(opened.deviceKey.publicKey == original.deviceKey.publicKey)
        #expect(opened.syncKey.epoch == 1)
        #expect(
            SpaceCheck.matches(
                SpaceCheck.keyCheck(syncKey: key, spaceID: space), syncKey: opened.syncKey, spaceID: space))
        #expect(!"\(opened)".contains("role-secret-42"))
    }

    @Test func enrollmentFileRefusesWrongPassphraseAndDamage() throws {
        let file = try EnrollmentFile.seal(credentials(), passphrase: Data("tulip ladder".utf8), parameters: Self.cheap)
        func invalid(_ data: Data, _ passphrase: String = "tulip ladder") -> Bool {
            do {
                _ = try EnrollmentFile.open(data, passphrase: Data(passphrase.utf8))
                return false
            } catch {
                guard case .enrollmentInvalid = error else { return false }
                return true
            }
        }
        #expect(invalid(file, "tulip ladders"))
        #expect(invalid(Data(file.prefix(file.count / 2))))
        #expect(invalid(Data("{}".utf8)))
        var document = try #require(JSONSerialization.jsonObject(with: file) as? [String: Any])
        let encodedPayload = try #require(document["payload"] as? String)
        var payload = try #require(Data(base64Encoded: encodedPayload))
        payload[payload.startIndex + 20] ^= 1
        document["payload"] = payload.base64EncodedString()
        #expect(invalid(try JSONSerialization.data(withJSONObject: document)))
    }

    @Test func recordEncodingRejectsMalformedInput() {
        let encoded = record().encoded()
        #expect(RowRecord(decoding: encoded) == record())
        #expect(RowRecord(decoding: encoded.dropLast()) == nil)
        #expect(RowRecord(decoding: encoded + Data([0])) == nil)
        #expect(RowRecord(decoding: Data()) == nil)
    }
}
