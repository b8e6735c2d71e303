import Coffer
import Foundation

/// The credential-store fixture: a `CredentialStore` collection in the row-key format of
/// revision 99541a4, which later stores migrate when they open it.
struct CredentialFixtures {
    let context: GeneratorContext

    /// The file name of the legacy store inside `credentials/<folder>/`.
    static let fileName = "legacy-store.db"

    /// Value-encryption keys 1 and 2; key 1 current at first (the chains fixture's keys).
    static let keyring = ChainFixtures.keyring

    /// `CredentialStore`'s chain: Codable `CredentialItem` JSON, AES-256-GCM, no unencrypted rows.
    static let serializers = [
        CollectionSerializers(
            collection: CredentialFixtureData.collection,
            object: ChainSpec(
                codec: .credentialItem, stages: [.aesGCM(keyring: "credentials")], acceptsUnencryptedBlobs: false))
    ]

    /// `credentials/<folder>/<name>`.
    static func path(_ name: String, folder: String) -> String { "credentials/\(folder)/\(name)" }

    /// Writes the legacy store and its manifest entry.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    func make() throws {
        let path = Self.path(Self.fileName, folder: context.folder)
        var recipe = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096), keyrings: ["credentials": Self.keyring],
            serializers: Self.serializers)
        let contents = try CofferFixtures.build(path, recipe: recipe, context: context) { database in
            try database.write(CredentialFixtureData.itemsKey1.map(CredentialFixtureData.row))
            try database.makeCurrent(2, inKeyring: "credentials")
            try database.write(CredentialFixtureData.itemsKey2.map(CredentialFixtureData.row))
        }
        recipe.keyrings["credentials"]?.current = 2
        var onlyKey1 = Self.keyring
        onlyKey1.keys.removeAll { $0.id == 2 }
        let underKey2 = Set(CredentialFixtureData.itemsKey2.map { CredentialFixtureData.legacyKey($0.id) })
        context.addDatabase(
            path,
            origin: context.origin(
                "a CredentialStore collection as revision 99541a4 wrote it: each CredentialItem under the row key service U+001F account U+001F access group (unescaped; a nil group written as \"\"), through the store's chain (Codable JSON, AES-256-GCM, unencrypted rows refused); items written with CredentialItem's fixed dates rather than the store's clock; five items under value key 1, then key 2 made current and one more item written"
            ),
            recipe: recipe,
            checks: [
                Check(name: "contents", expect: contents),
                Check(
                    name: "keyring without key 2", keyrings: ["credentials": onlyKey1],
                    expect: contents.failingAsUnknownKey(
                        Set(underKey2.map { CollectionKey(collection: CredentialFixtureData.collection, key: $0) }))),
                Check(name: "wrong raw key", key: .raw(FixtureKeys.otherRawKey), expect: .openError("wrongKey")),
            ])
    }
}
