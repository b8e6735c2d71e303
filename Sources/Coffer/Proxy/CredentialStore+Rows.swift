import Foundation

/// Finding and writing the row of one identifier.
extension CredentialStore {
    /// Where `id`'s item is stored, and the item: under its key, or — while old-format rows
    /// remain — under its old key.
    /// - Throws: ``DatabaseError`` when the row cannot be decrypted.
    func stored(_ id: CredentialID, _ tx: ReadTransaction) throws -> (key: String, item: CredentialItem)? {
        let key = CredentialKey.key(for: id)
        if let item = try tx.object(forKey: key, inCollection: collection, as: CredentialItem.self) {
            return (key, item)
        }
        return try legacyItem(id, tx)
    }

    /// `id`'s item under its old-format key, when old-format rows remain and that row holds `id`.
    /// - Throws: ``DatabaseError`` when the row there cannot be decrypted: an old key can be shared
    ///   by several identifiers, so the row may hold `id`'s item, and treating it as absent could
    ///   hide or duplicate that item.
    func legacyItem(_ id: CredentialID, _ tx: ReadTransaction) throws -> (key: String, item: CredentialItem)? {
        guard legacyRowsRemain else { return nil }
        let key = CredentialKey.legacyKey(for: id)
        guard let item = try tx.object(forKey: key, inCollection: collection, as: CredentialItem.self),
            CredentialKey.same(item.id, id)
        else { return nil }
        return (key, item)
    }

    /// Writes `item` under its key, and removes the row it was stored under when that was
    /// another (its old-format key).
    func write(_ item: CredentialItem, replacing oldKey: String?, _ tx: ReadWriteTransaction) throws {
        let key = CredentialKey.key(for: item.id)
        try tx.setObject(item, forKey: key, inCollection: collection)
        if let oldKey, oldKey != key { try tx.removeObject(forKey: oldKey, inCollection: collection) }
    }

    /// The order ``items(forService:accessGroup:)`` returns: by account, then no access group
    /// before any, then by access group.
    static func listingOrder(_ lhs: CredentialItem, _ rhs: CredentialItem) -> Bool {
        if lhs.id.account != rhs.id.account { return lhs.id.account < rhs.id.account }
        switch (lhs.id.accessGroup, rhs.id.accessGroup) {
        case (let left?, let right?): return left < right
        case (nil, _?): return true
        default: return false
        }
    }
}
