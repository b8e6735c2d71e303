import Foundation

/// A Keychain-like store of secrets for Linux services and tools.
///
/// Items are identified by service + account (+ an optional access group) and hold a secret
/// plus attributes. Secrets are encrypted twice: by SQLCipher with the database, and by an
/// AES-GCM stage under the given keyring's own key — so the SQLCipher key alone does not reveal
/// them. Every change is committed before the call returns (no write-behind), and decoded
/// secrets are never kept in a connection cache.
public final class CredentialStore: Sendable {
    /// The database the items live in.
    public let database: Database
    /// The collection holding the items.
    public let collection: String
    private let connection: Connection

    /// Opens the store in `collection`, encrypting secrets with `keyring`'s current key.
    ///
    /// Registers the collection's chain (`acceptsUnencryptedBlobs: false`: a row that is not
    /// AES-GCM-encrypted is an error, never silently read).
    /// - Throws: ``DatabaseError`` when the store's connection cannot be opened.
    public init(database: Database, keyring: Keyring, collection: String = "coffer.credentials") throws {
        self.database = database
        self.collection = collection
        let stages: [any SerializationStage] = [.aesGCM(keyring)]
        database.registerObjectSerializer(
            SerializerChain(codec: .codable(CredentialItem.self), stages: stages, acceptsUnencryptedBlobs: false),
            forCollection: collection)
        connection = try database.newConnection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
    }

    /// Adds a new item.
    /// - Throws: ``DatabaseError`` `.duplicateItem` when the item exists, or any write error.
    public func add(_ item: CredentialItem) throws {
        try connection.readWrite { tx in
            guard try !tx.hasObject(forKey: item.id.storageKey, inCollection: collection) else {
                throw DatabaseError(
                    .duplicateItem, "a credential for this service and account exists", collection: collection,
                    key: item.id.storageKey)
            }
            var stored = item
            stored.creationDate = Date()
            stored.modificationDate = stored.creationDate
            try tx.setObject(stored, forKey: item.id.storageKey, inCollection: collection)
        }
    }

    /// Replaces an existing item's secret and attributes (keeping its creation date).
    /// - Throws: ``DatabaseError`` `.itemNotFound`, or any write error.
    public func update(_ item: CredentialItem) throws {
        try connection.readWrite { tx in
            guard
                let existing = try tx.object(
                    forKey: item.id.storageKey, inCollection: collection, as: CredentialItem.self)
            else {
                throw DatabaseError(
                    .itemNotFound, "no credential for this service and account", collection: collection,
                    key: item.id.storageKey)
            }
            var stored = item
            stored.creationDate = existing.creationDate
            stored.modificationDate = Date()
            try tx.setObject(stored, forKey: item.id.storageKey, inCollection: collection)
        }
    }

    /// Adds the item, or replaces it when it exists.
    /// - Throws: any ``DatabaseError`` from writing.
    public func upsert(_ item: CredentialItem) throws {
        try connection.readWrite { tx in
            let existing = try tx.object(forKey: item.id.storageKey, inCollection: collection, as: CredentialItem.self)
            var stored = item
            stored.modificationDate = Date()
            stored.creationDate = existing?.creationDate ?? stored.modificationDate
            try tx.setObject(stored, forKey: item.id.storageKey, inCollection: collection)
        }
    }

    /// The item for `id`, or nil.
    /// - Throws: ``DatabaseError`` `.serialization` (authentication failure) when the stored item
    ///   was tampered with or its key id is not in the keyring.
    public func item(for id: CredentialID) throws -> CredentialItem? {
        try connection.read { try $0.object(forKey: id.storageKey, inCollection: collection, as: CredentialItem.self) }
    }

    /// Deletes the item for `id`; returns whether one existed.
    /// - Throws: any ``DatabaseError`` from writing.
    @discardableResult
    public func delete(_ id: CredentialID) throws -> Bool {
        try connection.readWrite { tx in
            guard try tx.hasObject(forKey: id.storageKey, inCollection: collection) else { return false }
            try tx.removeObject(forKey: id.storageKey, inCollection: collection)
            return true
        }
    }

    /// Every item of `service` (optionally only those in `accessGroup`), sorted by account.
    /// - Complexity: O(items in the store): keys are filtered before any secret is decrypted.
    /// - Throws: ``DatabaseError`` when a matching item cannot be decrypted.
    public func items(forService service: String, accessGroup: String? = nil) throws -> [CredentialItem] {
        let prefix = CredentialID.prefix(service: service)
        return try connection.read { tx in
            var result: [CredentialItem] = []
            try tx.enumerateKeysAndObjects(
                inCollection: collection, as: CredentialItem.self, filter: { $0.hasPrefix(prefix) }
            ) { _, item, _ in
                if accessGroup == nil || item.id.accessGroup == accessGroup { result.append(item) }
            }
            return result.sorted { $0.id.account < $1.id.account }
        }
    }
}
