import Coffer
import Foundation

/// The chains fixture: one collection per serializer chain, with values encrypted under two key ids.
struct ChainFixtures {
    let context: GeneratorContext

    /// The file name of the chains fixture (damaged fixtures are derived from it).
    static let fileName = "chains.db"

    /// Both value-encryption keys; key 1 current at first.
    static let keyring = KeyringSpec(
        current: 1,
        keys: [
            KeyringSpec.Key(id: 1, hex: Hex.string(FixtureKeys.keyringKey1)),
            KeyringSpec.Key(id: 2, hex: Hex.string(FixtureKeys.keyringKey2)),
        ])

    /// One chain per collection.
    static let serializers = [
        CollectionSerializers(collection: "codec-only", object: ChainSpec(codec: .note)),
        CollectionSerializers(
            collection: "zlib", object: ChainSpec(codec: .note, stages: [.zlib(decompressionLimit: nil)])),
        CollectionSerializers(
            collection: "aes-gcm", object: ChainSpec(codec: .secret, stages: [.aesGCM(keyring: "values")])),
        CollectionSerializers(
            collection: "zlib+aes-gcm",
            object: ChainSpec(codec: .note, stages: [.zlib(decompressionLimit: nil), .aesGCM(keyring: "values")]),
            metadata: ChainSpec(codec: .noteMeta, stages: [.aesGCM(keyring: "values")])),
        CollectionSerializers(collection: "plist", object: ChainSpec(codec: .settingsPlist)),
        CollectionSerializers(collection: "timestamps", object: ChainSpec(codec: .timestamp)),
        CollectionSerializers(collection: "strings", object: ChainSpec(codec: .string)),
        CollectionSerializers(collection: "data", object: ChainSpec(codec: .data)),
    ]

    /// The recipe of the chains fixture.
    static let recipe = FixtureDatabase.Recipe(
        key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096), keyrings: ["values": keyring],
        serializers: serializers)

    /// Writes the chains fixture.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    func make() throws {
        let path = context.cofferPath(Self.fileName)
        var recipe = Self.recipe
        let contents = try CofferFixtures.build(path, recipe: recipe, context: context) { database in
            try database.write(FixtureData.plainChains)
            try database.write(FixtureData.secretsKey1 + FixtureData.bothKey1)
            try database.makeCurrent(2, inKeyring: "values")
            try database.write(FixtureData.secretsKey2 + FixtureData.bothKey2)
        }
        recipe.keyrings["values"]?.current = 2
        var onlyKey1 = Self.keyring
        onlyKey1.keys.removeAll { $0.id == 2 }
        context.addDatabase(
            path,
            origin: context.origin(
                "every chain: codec only (JSON, plist, timestamp, string, data), zlib, AES-256-GCM, zlib + AES-256-GCM with encrypted metadata; rows written under value key 1, then key 2 made current and more rows written"
            ),
            recipe: recipe,
            checks: [
                Check(name: "contents", expect: contents),
                Check(
                    name: "keyring without key 2", keyrings: ["values": onlyKey1],
                    expect: contents.failingAsUnknownKey(
                        Set(
                            (FixtureData.secretsKey2 + FixtureData.bothKey2).map {
                                CollectionKey(collection: $0.collection, key: $0.key)
                            }))),
            ])
    }
}
