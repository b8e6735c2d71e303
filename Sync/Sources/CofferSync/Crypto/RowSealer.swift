import Crypto
public import Foundation

/// Seals rows for one space under one epoch's sync key, and opens and checks what the server
/// returns: the AEAD binds every clear label of the row, and the decrypted collection and key
/// must hash to the row id.
public struct RowSealer: Sendable {
    /// The space whose rows this sealer handles.
    public let spaceID: UUID
    /// The key epoch it seals under.
    public var epoch: Int { syncKey.epoch }
    let syncKey: SyncKey
    let subkeys: SyncSubkeys

    /// A sealer for `spaceID`'s rows under `syncKey`.
    public init(syncKey: SyncKey, spaceID: UUID) {
        self.syncKey = syncKey
        self.spaceID = spaceID
        subkeys = syncKey.subkeys
    }

    /// The id of `key` in `collection` under this sealer's key.
    public func rowID(collection: String, key: String) -> RowID {
        RowID(collection: collection, key: key, subkeys: subkeys)
    }

    /// Seals `record` as version `version`, uploaded by `deviceID`.
    ///
    /// - Throws: `SyncError.misuse` if the system's AES-GCM fails (it does not for valid keys).
    public func seal(_ record: RowRecord, version: Int64, deviceID: UUID) throws(SyncError) -> SealedRow {
        let rowID = rowID(collection: record.collection, key: record.key)
        let deleted = record.isTombstone
        let aad = associatedData(
            rowID: rowID, version: version, deleted: deleted, deviceID: deviceID, epoch: syncKey.epoch)
        do {
            let box = try AES.GCM.seal(record.encoded(), using: subkeys.seal, authenticating: aad)
            guard let combined = box.combined else { throw SyncError.misuse("AES-GCM gave no combined form") }
            return SealedRow(
                rowID: rowID, version: version, deviceID: deviceID, deleted: deleted, keyEpoch: syncKey.epoch,
                ciphertext: combined)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.misuse("sealing a row failed")
        }
    }

    /// Opens a row the server returned and checks it is the row its labels say.
    ///
    /// - Throws: `SyncError.tampered` when the row was sealed under another epoch, its
    ///   ciphertext or any label (space, row id, version, deleted, device, epoch) was changed,
    ///   the plaintext is malformed, its collection and key do not hash to the row id, or the
    ///   deleted flag disagrees with the content.
    public func open(_ row: SealedRow) throws(SyncError) -> RowRecord {
        func tampered(_ reason: String) -> SyncError { .tampered(rowID: row.rowID.description, reason: reason) }
        guard row.keyEpoch == syncKey.epoch else {
            throw tampered("sealed under key epoch \(row.keyEpoch), this device holds \(syncKey.epoch)")
        }
        guard row.version > 0 else { throw tampered("version \(row.version) is not positive") }
        let aad = associatedData(
            rowID: row.rowID, version: row.version, deleted: row.deleted, deviceID: row.deviceID, epoch: row.keyEpoch)
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: row.ciphertext)
            plaintext = try AES.GCM.open(box, using: subkeys.seal, authenticating: aad)
        } catch {
            throw tampered("authentication failed")
        }
        guard let record = RowRecord(decoding: plaintext) else { throw tampered("the content is malformed") }
        guard rowID(collection: record.collection, key: record.key) == row.rowID else {
            throw tampered("the content belongs to another row id")
        }
        guard record.isTombstone == row.deleted else { throw tampered("the deleted flag disagrees with the content") }
        return record
    }

    /// `"coffer-sync row v1" ‖ space ‖ row id ‖ version ‖ deleted ‖ device ‖ epoch` (DESIGN.md).
    func associatedData(rowID: RowID, version: Int64, deleted: Bool, deviceID: UUID, epoch: Int) -> Data {
        var writer = ByteWriter()
        writer.append(raw: Data("coffer-sync row v1".utf8))
        writer.append(spaceID)
        writer.append(raw: rowID.bytes)
        writer.append(UInt64(bitPattern: version))
        writer.append(UInt8(deleted ? 1 : 0))
        writer.append(deviceID)
        writer.append(UInt32(truncatingIfNeeded: epoch))
        return writer.data
    }
}
