import Coffer
import Foundation

/// The fixtures Coffer itself writes: every key kind, the cipher settings, every chain,
/// metadata, a persisted extension, and a WAL that was never checkpointed.
struct CofferFixtures {
    let context: GeneratorContext

    /// Chains of the notes collections: JSON notes with JSON metadata.
    static let noteSerializers = [
        CollectionSerializers(
            collection: "notes", object: ChainSpec(codec: .note), metadata: ChainSpec(codec: .noteMeta)),
        CollectionSerializers(collection: "", object: ChainSpec(codec: .note)),
    ]

    /// Makes every Coffer-written fixture.
    /// - Throws: ``DatabaseError``, ``KeyFileError`` or ``GeneratorError``.
    func make() throws {
        try makeKeyKinds()
        try makeCipherSettings()
        try makeKeyFileFixture()
        try ChainFixtures(context: context).make()
        try ExtensionFixtures(context: context).make()
        try WALFixtures(context: context).make()
    }

    /// Writes a notes database and returns what its contents check must see.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    static func writeNotes(
        _ path: String, recipe: FixtureDatabase.Recipe, context: GeneratorContext
    ) throws -> Expectation {
        try build(path, recipe: recipe, context: context) { database in
            try database.write(Array(FixtureData.notes.prefix(3)))
            try database.write(Array(FixtureData.notes.dropFirst(3)))
        }
    }

    /// Creates a database at the staged `path`, runs `body`, checks it reads back, closes it,
    /// and returns the contents expectation.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    static func build(
        _ path: String, recipe: FixtureDatabase.Recipe, context: GeneratorContext,
        _ body: (FixtureDatabase) throws -> Void
    ) throws -> Expectation {
        let stage = context.stage
        let database = try FixtureDatabase(url: try stage.url(path), recipe: recipe) { stage.stagedURL($0) }
        context.noteVersions(of: try database.open())
        try body(database)
        try database.verifyReadBack()
        var expectation = Expectation()
        expectation.rows = try database.expectedRows()
        expectation.snapshot = try database.snapshot()
        expectation.pageSize = try database.pageSize()
        try database.close()
        return expectation
    }

    private func makeKeyKinds() throws {
        let raw = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096), serializers: Self.noteSerializers)
        let rawPath = context.cofferPath("raw-4096.db")
        let rawContents = try Self.writeNotes(rawPath, recipe: raw, context: context)
        context.addDatabase(
            rawPath, origin: context.origin("raw 256-bit key, 4096-byte pages; notes with JSON metadata"),
            recipe: raw,
            checks: [
                Check(name: "contents", expect: rawContents),
                Check(name: "automatic page size", cipher: CipherSpec(), expect: rawContents),
                Check(name: "wrong raw key", key: .raw(FixtureKeys.otherRawKey), expect: .openError("wrongKey")),
                Check(name: "wrong page size", cipher: CipherSpec(pageSize: 1024), expect: .openError("wrongKey")),
                Check(name: "no key", key: KeySpec.none, expect: .openError("keyRequired")),
            ])

        let salted = FixtureDatabase.Recipe(
            key: .rawWithSalt(FixtureKeys.rawKey, salt: FixtureKeys.salt), cipher: CipherSpec(pageSize: 4096),
            serializers: Self.noteSerializers)
        let saltedPath = context.cofferPath("raw-key-salt.db")
        var saltedContents = try Self.writeNotes(saltedPath, recipe: salted, context: context)
        saltedContents.fileStartsWithHex = Hex.string(FixtureKeys.salt)
        context.addDatabase(
            saltedPath,
            origin: context.origin("raw key plus a caller-chosen 16-byte salt (the file's first 16 bytes)"),
            recipe: salted,
            checks: [
                Check(name: "contents", expect: saltedContents),
                Check(name: "raw key without the salt", key: .raw(FixtureKeys.rawKey), expect: saltedContents),
            ])

        let plain = FixtureDatabase.Recipe(
            key: KeySpec.none, cipher: CipherSpec(pageSize: 4096), serializers: Self.noteSerializers)
        let plainPath = context.cofferPath("unencrypted.db")
        let plainContents = try Self.writeNotes(plainPath, recipe: plain, context: context)
        context.addDatabase(
            plainPath, origin: context.origin("no key: an unencrypted Coffer database"), recipe: plain,
            checks: [
                Check(name: "contents", expect: plainContents),
                Check(
                    name: "a key for a plaintext file", key: .raw(FixtureKeys.rawKey),
                    expect: .openError("notEncrypted")),
            ])
    }

    private func makeCipherSettings() throws {
        let v3 = FixtureDatabase.Recipe(
            key: .passphrase(FixtureKeys.passphrase),
            cipher: CipherSpec(pageSize: 1024, kdfIterations: 64_000, useHMAC: true), serializers: Self.noteSerializers)
        let v3Path = context.cofferPath("passphrase-sqlcipher3-defaults.db")
        let v3Contents = try Self.writeNotes(v3Path, recipe: v3, context: context)
        context.addDatabase(
            v3Path,
            origin: context.origin(
                "passphrase with SQLCipher 3.x defaults (1024-byte pages, 64,000 PBKDF2-SHA1 iterations, HMAC-SHA1); a long note overflows into later pages"
            ),
            recipe: v3,
            checks: [
                Check(name: "contents", expect: v3Contents),
                Check(name: "automatic page size", cipher: CipherSpec(), expect: v3Contents),
                Check(
                    name: "wrong passphrase", key: .passphrase(FixtureKeys.wrongPassphrase),
                    expect: .openError("wrongKey")),
                Check(name: "no key", key: KeySpec.none, expect: .openError("keyRequired")),
            ])

        let kdf = FixtureDatabase.Recipe(
            key: .passphrase(FixtureKeys.passphrase), cipher: CipherSpec(pageSize: 4096, kdfIterations: 10_000),
            serializers: Self.noteSerializers)
        let kdfPath = context.cofferPath("passphrase-kdf10000.db")
        let kdfContents = try Self.writeNotes(kdfPath, recipe: kdf, context: context)
        context.addDatabase(
            kdfPath, origin: context.origin("passphrase with custom KDF iterations (10,000) and 4096-byte pages"),
            recipe: kdf,
            checks: [
                Check(name: "contents", expect: kdfContents),
                Check(
                    name: "default iterations", cipher: CipherSpec(pageSize: 4096), expect: .openError("wrongKey")),
            ])

        let noHMAC = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096, useHMAC: false),
            serializers: Self.noteSerializers)
        let noHMACPath = context.cofferPath("hmac-off.db")
        let noHMACContents = try Self.writeNotes(noHMACPath, recipe: noHMAC, context: context)
        context.addDatabase(
            noHMACPath, origin: context.origin("raw key, per-page HMAC turned off"), recipe: noHMAC,
            checks: [
                Check(name: "contents", expect: noHMACContents),
                Check(
                    name: "HMAC on", cipher: CipherSpec(pageSize: 4096, useHMAC: true), expect: .openError("wrongKey")),
            ])
    }

    private func makeKeyFileFixture() throws {
        let keyFilePath = context.cofferPath("envelope.coffer-key")
        let keyFile = try KeyFile(
            wrapping: try DataKey(bytes: FixtureKeys.keyFileDataKey),
            passphrase: Data(FixtureKeys.keyFilePassphrase.utf8),
            parameters: .scrypt(n: 1024, r: 8, p: 1))
        try keyFile.write(to: try context.stage.url(keyFilePath))
        context.add(
            ManifestEntry(
                path: keyFilePath, type: .keyFile, sha256: "", size: 0,
                origin: context.origin(
                    "KeyFile(wrapping:) of a fixed data key under one passphrase, scrypt N=1024 r=8 p=1 (test strength)"
                ),
                sidecars: nil, sidecarOf: nil, key: nil, cipher: nil, formatVersion: nil, keyrings: nil,
                serializers: nil, secondaryIndexes: nil,
                checks: [
                    Check(
                        name: "unwrap", unwrapPassphrase: FixtureKeys.keyFilePassphrase,
                        expect: Expectation(
                            dataKeyHex: Hex.string(FixtureKeys.keyFileDataKey), keyIdentifier: keyFile.keyIdentifier)),
                    Check(
                        name: "wrong passphrase", unwrapPassphrase: FixtureKeys.wrongPassphrase,
                        expect: Expectation(keyFileError: "wrongPassphrase")),
                ]))

        let recipe = FixtureDatabase.Recipe(
            key: .keyFile(path: keyFilePath, passphrase: FixtureKeys.keyFilePassphrase),
            cipher: CipherSpec(pageSize: 4096), serializers: Self.noteSerializers)
        let path = context.cofferPath("envelope-key.db")
        let contents = try Self.writeNotes(path, recipe: recipe, context: context)
        context.addDatabase(
            path, origin: context.origin("keyed with the data key of envelope.coffer-key"), recipe: recipe,
            checks: [
                Check(name: "contents", expect: contents),
                Check(name: "the data key as a raw key", key: .raw(FixtureKeys.keyFileDataKey), expect: contents),
                Check(
                    name: "wrong key-file passphrase",
                    key: .keyFile(path: keyFilePath, passphrase: FixtureKeys.wrongPassphrase),
                    expect: .openError("wrongPassphrase")),
                Check(
                    name: "damaged key file",
                    key: .keyFile(
                        path: context.damagedPath("envelope-flipped.coffer-key"),
                        passphrase: FixtureKeys.keyFilePassphrase),
                    expect: .openError("damagedKeyFile")),
            ])
    }
}

extension Expectation {
    /// Opening must fail with this `DatabaseError` code.
    static func openError(_ code: String) -> Expectation {
        Expectation(openError: ErrorSpec(code: code))
    }
}
