import Foundation

/// A Keychain-like store of secrets for Linux services and tools.
///
/// Items are identified by service + account (+ an optional access group) and hold a secret
/// plus attributes. Secrets are encrypted twice: by SQLCipher with the database, and by an
/// AES-GCM stage under the given keyring's own key — so the SQLCipher key alone does not reveal
/// them. Every change is committed before the call returns (no write-behind), and decoded
/// secrets are never kept in a connection cache.
///
/// Each item is one row of ``collection``, keyed by its escaped identifier
/// (`service/account[/group]`, see <doc:PreferencesAndCredentials>): distinct identifiers always
/// have distinct rows — a nil access group and an empty one included — and parts are compared
/// exactly, Unicode scalar by Unicode scalar.
///
/// Once the database is closed, every call throws ``DatabaseError`` `.closed`.
public final class CredentialStore: Sendable {
    /// The database the items live in.
    public let database: Database
    /// The collection holding the items.
    public let collection: String
    private let connection: Connection
    /// Whether rows in the key format of revision 99541a4 stayed when the store opened.
    ///
    /// They could not be decrypted. Lookups then also try an identifier's old key, so such an
    /// item fails with its decryption error instead of looking absent.
    let legacyRowsRemain: Bool

    /// Opens the store in `collection`, encrypting secrets with `keyring`'s current key.
    ///
    /// Registers the collection's chain (`acceptsUnencryptedBlobs: false`: a row that is not
    /// AES-GCM-encrypted is an error, never silently read). Then, in one write transaction, moves
    /// every item stored in the key format Coffer wrote up to revision 99541a4 (parts joined by
    /// U+001F, unescaped) to its current key, re-encrypting it through the chain. A row that
    /// cannot be decrypted — its key id is not in `keyring`, or it was tampered with — stays where
    /// it is, is logged as a warning (collection, row key and error code, never its contents), and
    /// is retried on the next open. Until then, reading, updating, replacing or deleting an
    /// identifier whose old key it has throws that row's error, and so does listing a service it
    /// may belong to: the old key cannot tell which identifier the row holds.
    /// - Throws: ``DatabaseError`` when the store's connection cannot be opened or the migration
    ///   cannot be written; `.duplicateItem` when an old-format item also exists under its current
    ///   key (the migration then moves nothing).
    public init(database: Database, keyring: Keyring, collection: String = "coffer.credentials") throws {
        self.database = database
        self.collection = collection
        let stages: [any SerializationStage] = [.aesGCM(keyring)]
        database.registerObjectSerializer(
            SerializerChain(codec: .codable(CredentialItem.self), stages: stages, acceptsUnencryptedBlobs: false),
            forCollection: collection)
        connection = try database.newConnection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
        legacyRowsRemain = try Self.migrateLegacyKeys(in: collection, connection: connection, logger: database.logger)
    }

    /// Adds a new item.
    /// - Throws: ``DatabaseError`` `.duplicateItem` when the item exists, or any write error.
    public func add(_ item: CredentialItem) throws {
        let key = CredentialKey.key(for: item.id)
        try connection.readWrite { tx in
            guard try !tx.hasObject(forKey: key, inCollection: collection), try legacyItem(item.id, tx) == nil else {
                throw DatabaseError(
                    .duplicateItem, "a credential for this service and account exists", collection: collection,
                    key: key)
            }
            var stored = item
            stored.creationDate = Date()
            stored.modificationDate = stored.creationDate
            try tx.setObject(stored, forKey: key, inCollection: collection)
        }
    }

    /// Replaces an existing item's secret and attributes (keeping its creation date).
    /// - Throws: ``DatabaseError`` `.itemNotFound`, or any write error.
    public func update(_ item: CredentialItem) throws {
        try connection.readWrite { tx in
            guard let existing = try stored(item.id, tx) else {
                throw DatabaseError(
                    .itemNotFound, "no credential for this service and account", collection: collection,
                    key: CredentialKey.key(for: item.id))
            }
            var stored = item
            stored.creationDate = existing.item.creationDate
            stored.modificationDate = Date()
            try write(stored, replacing: existing.key, tx)
        }
    }

    /// Adds the item, or replaces it when it exists.
    /// - Throws: any ``DatabaseError`` from writing.
    public func upsert(_ item: CredentialItem) throws {
        try connection.readWrite { tx in
            let existing = try stored(item.id, tx)
            var stored = item
            stored.modificationDate = Date()
            stored.creationDate = existing?.item.creationDate ?? stored.modificationDate
            try write(stored, replacing: existing?.key, tx)
        }
    }

    /// The item for `id`, or nil.
    /// - Throws: ``DatabaseError`` `.serialization` (authentication failure) when the stored item
    ///   was tampered with or its key id is not in the keyring.
    public func item(for id: CredentialID) throws -> CredentialItem? {
        try connection.read { try stored(id, $0)?.item }
    }

    /// Deletes the item for `id`; returns whether one existed.
    /// - Throws: any ``DatabaseError`` from writing.
    @discardableResult
    public func delete(_ id: CredentialID) throws -> Bool {
        try connection.readWrite { tx in
            let key = CredentialKey.key(for: id)
            if try tx.hasObject(forKey: key, inCollection: collection) {
                try tx.removeObject(forKey: key, inCollection: collection)
                return true
            }
            guard let legacy = try legacyItem(id, tx) else { return false }
            try tx.removeObject(forKey: legacy.key, inCollection: collection)
            return true
        }
    }

    /// Every item of exactly `service` (only those in exactly `accessGroup` when it is not nil),
    /// sorted by account, then access group.
    /// - Complexity: O(items in the store): keys are filtered before any secret is decrypted.
    /// - Throws: ``DatabaseError`` when a matching item cannot be decrypted.
    public func items(forService service: String, accessGroup: String? = nil) throws -> [CredentialItem] {
        let prefix = CredentialKey.servicePrefix(service)
        let legacyPrefix = legacyRowsRemain ? CredentialKey.legacyServicePrefix(service) : nil
        let filter = { (key: String) -> Bool in
            if CredentialKey.isLegacy(key) { return legacyPrefix.map { CredentialKey.hasPrefix(key, $0) } ?? false }
            guard CredentialKey.hasPrefix(key, prefix) else { return false }
            // The group is the key's third part: items of other groups are never decrypted.
            guard let accessGroup else { return true }
            return CredentialKey.id(from: key).map { CredentialKey.same($0.accessGroup, accessGroup) } ?? false
        }
        return try connection.read { tx in
            var result: [CredentialItem] = []
            try tx.enumerateKeysAndObjects(inCollection: collection, as: CredentialItem.self, filter: filter) {
                _, item, _ in
                // An old-format key's prefix also matches other services' keys; the item's own id decides.
                guard CredentialKey.same(item.id.service, service) else { return }
                if accessGroup == nil || CredentialKey.same(item.id.accessGroup, accessGroup) { result.append(item) }
            }
            return result.sorted(by: Self.listingOrder)
        }
    }
}
