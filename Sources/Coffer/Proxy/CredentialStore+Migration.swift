import Foundation
import Logging

/// Moving items from the row-key format of revision 99541a4 (``CredentialKey/legacyKey(for:)``) to the current one.
extension CredentialStore {
    /// Moves the old-format rows of `collection` to their items' current keys; returns whether
    /// any stayed because they could not be decrypted.
    ///
    /// Runs on every open rather than once behind a record in the file: when no old-format row is
    /// left, the check is one read of the collection's keys (nothing is decrypted, nothing is
    /// written), and it also finds old-format rows that an older Coffer sharing the file wrote
    /// after an earlier migration, which a "migrated" record would hide.
    /// - Throws: ``DatabaseError`` when reading or writing fails, or `.duplicateItem` when an
    ///   old-format item also exists under its current key (nothing is moved then).
    static func migrateLegacyKeys(in collection: String, connection: Connection, logger: Logger) throws -> Bool {
        guard try connection.read({ try !legacyKeys(in: collection, $0).isEmpty }) else { return false }
        // Found again inside the write transaction: another store may have migrated them meanwhile.
        let unreadable = try connection.readWrite { tx in try moveLegacyRows(in: collection, tx) }
        guard !unreadable.isEmpty else { return false }
        let reasons = Set(unreadable.map { reason($0.error) }).sorted()
        logger.warning(
            "Coffer: credentials in the old row-key format could not be decrypted; they stay under their old keys and are retried when the store next opens",
            metadata: [
                "collection": "\(collection)", "count": "\(unreadable.count)",
                "keys": "\(unreadable.map { CredentialKey.escape($0.key) })", "errors": "\(reasons)",
            ])
        return true
    }

    /// An error's code, with the serialization code when there is one ("serialization/unknownKeyID").
    private static func reason(_ error: DatabaseError) -> String {
        guard let underlying = error.underlying as? SerializationError else { return error.code.rawValue }
        return "\(error.code.rawValue)/\(underlying.code)"
    }

    /// The old-format keys of `collection`, sorted.
    private static func legacyKeys(in collection: String, _ tx: ReadTransaction) throws -> [String] {
        var keys: [String] = []
        try tx.enumerateKeys(inCollection: collection) { key, _ in
            if CredentialKey.isLegacy(key) { keys.append(key) }
        }
        return keys.sorted()
    }

    /// Rewrites every old-format row that decrypts under its item's current key; returns the rows
    /// that stay, with their errors.
    private static func moveLegacyRows(
        in collection: String, _ tx: ReadWriteTransaction
    ) throws -> [(key: String, error: DatabaseError)] {
        var unreadable: [(key: String, error: DatabaseError)] = []
        var moved: [String: String] = [:]
        for oldKey in try legacyKeys(in: collection, tx) {
            let item: CredentialItem
            do {
                guard let stored = try tx.object(forKey: oldKey, inCollection: collection, as: CredentialItem.self)
                else { continue }
                item = stored
            } catch let error as DatabaseError where error.code == .serialization || error.code == .typeMismatch {
                unreadable.append((oldKey, error))
                continue
            }
            // The item carries its own id: the old key cannot be split back into parts reliably.
            let newKey = CredentialKey.key(for: item.id)
            if let other = moved[newKey] {
                throw DatabaseError(
                    .duplicateItem,
                    "two credentials in the old row-key format (\(CredentialKey.escape(other)) and \(CredentialKey.escape(oldKey))) are the same item; nothing was migrated",
                    collection: collection, key: newKey)
            }
            guard try !tx.hasObject(forKey: newKey, inCollection: collection) else {
                throw DatabaseError(
                    .duplicateItem,
                    "a credential in the old row-key format (\(CredentialKey.escape(oldKey))) also exists under its current key; nothing was migrated",
                    collection: collection, key: newKey)
            }
            // AES-GCM binds each value to its collection and key: the item is encrypted afresh for
            // its new key through the chain, never copied as bytes.
            try tx.setObject(item, forKey: newKey, inCollection: collection)
            try tx.removeObject(forKey: oldKey, inCollection: collection)
            moved[newKey] = oldKey
        }
        return unreadable
    }
}
