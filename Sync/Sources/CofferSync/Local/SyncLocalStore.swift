import Coffer
import Foundation

/// Where a device keeps its sync state: two collections reserved for sync in its own encrypted
/// database, never synced themselves.
///
/// - `coffer-sync.rows`: per synced row, keyed by the length-prefixed collection and key, a
///   ``SyncRowState`` in the binary Codable format.
/// - `coffer-sync.state`: raw bytes under `credentials` (the device's secrets), `cursor` (the
///   highest sequence applied), `clock` (the clock's last value) and `clockID` (the id the clock
///   stamps writes with).
enum SyncLocalStore {
    static let rowsCollection = "coffer-sync.rows"
    static let stateCollection = "coffer-sync.state"

    /// Registers the serializers of the reserved collections.
    static func registerSerializers(on database: Database) {
        database.registerCodable(SyncRowState.self, forCollection: rowsCollection, format: .binary)
        database.registerData(forCollection: stateCollection)
    }

    static func stateKey(collection: String, key: String) -> String {
        "\(collection.utf8.count):\(collection)\(key)"
    }

    static func rowState(_ tx: ReadTransaction, collection: String, key: String) throws -> SyncRowState? {
        try tx.object(
            forKey: stateKey(collection: collection, key: key), inCollection: rowsCollection, as: SyncRowState.self)
    }

    static func setRowState(_ state: SyncRowState, _ tx: ReadWriteTransaction, collection: String, key: String) throws {
        try tx.setObject(state, forKey: stateKey(collection: collection, key: key), inCollection: rowsCollection)
    }

    static func data(_ tx: ReadTransaction, _ name: String) throws -> Data? {
        try tx.object(forKey: name, inCollection: stateCollection, as: Data.self)
    }

    static func setData(_ data: Data?, _ tx: ReadWriteTransaction, _ name: String) throws {
        try tx.setObject(data, forKey: name, inCollection: stateCollection)
    }

    static func integer(_ tx: ReadTransaction, _ name: String) throws -> UInt64 {
        guard let data = try data(tx, name), data.count == 8 else { return 0 }
        var reader = ByteReader(data)
        return reader.uint64() ?? 0
    }

    static func setInteger(_ value: UInt64, _ tx: ReadWriteTransaction, _ name: String) throws {
        var writer = ByteWriter()
        writer.append(value)
        try setData(writer.data, tx, name)
    }

    /// The highest server sequence applied.
    static func cursor(_ tx: ReadTransaction) throws -> Int64 { Int64(bitPattern: try integer(tx, "cursor")) }

    static func setCursor(_ cursor: Int64, _ tx: ReadWriteTransaction) throws {
        try setInteger(UInt64(bitPattern: cursor), tx, "cursor")
    }

    /// The device's credentials, if it joined a space.
    static func credentials(_ tx: ReadTransaction) throws -> SyncDeviceCredentials? {
        guard let data = try data(tx, "credentials") else { return nil }
        guard let credentials = SyncDeviceCredentials(decoding: data) else {
            throw SyncError.misuse("the stored sync credentials are damaged")
        }
        return credentials
    }

    static func setCredentials(_ credentials: SyncDeviceCredentials, _ tx: ReadWriteTransaction) throws {
        try setData(credentials.encoded(), tx, "credentials")
    }

    /// The id this database's clock stamps writes with, made once.
    static func clockID(_ tx: ReadWriteTransaction) throws -> UUID {
        if let data = try data(tx, "clockID"), data.count == 16 { return UUID(bytes: data) }
        let id = UUID()
        try setData(id.bytes, tx, "clockID")
        return id
    }

    /// Every synced row's state, in key order.
    static func enumerateRowStates(
        _ tx: ReadTransaction, _ body: (_ collection: String, _ key: String, _ state: SyncRowState) throws -> Void
    ) throws {
        for stateKey in try tx.allKeys(inCollection: rowsCollection) {
            guard let (collection, key) = split(stateKey),
                let state = try tx.object(forKey: stateKey, inCollection: rowsCollection, as: SyncRowState.self)
            else { continue }
            try body(collection, key, state)
        }
    }

    /// Everything in the reserved collections.
    struct Snapshot {
        var state: [(key: String, value: Data)]
        var rows: [(key: String, value: SyncRowState)]
    }

    static func snapshot(_ tx: ReadTransaction) throws -> Snapshot {
        var snapshot = Snapshot(state: [], rows: [])
        for key in try tx.allKeys(inCollection: stateCollection) {
            if let value = try data(tx, key) { snapshot.state.append((key, value)) }
        }
        for key in try tx.allKeys(inCollection: rowsCollection) {
            if let value = try tx.object(forKey: key, inCollection: rowsCollection, as: SyncRowState.self) {
                snapshot.rows.append((key, value))
            }
        }
        return snapshot
    }

    static func restore(_ snapshot: Snapshot, _ tx: ReadWriteTransaction) throws {
        for (key, value) in snapshot.state { try setData(value, tx, key) }
        for (key, value) in snapshot.rows { try tx.setObject(value, forKey: key, inCollection: rowsCollection) }
    }

    static func split(_ stateKey: String) -> (collection: String, key: String)? {
        guard let colon = stateKey.firstIndex(of: ":"), let count = Int(stateKey[..<colon]) else { return nil }
        let bytes = Array(stateKey.utf8[stateKey.utf8.index(after: colon)...])
        guard bytes.count >= count, let collection = String(bytes: bytes[..<count], encoding: .utf8),
            let key = String(bytes: bytes[count...], encoding: .utf8)
        else { return nil }
        return (collection, key)
    }
}
