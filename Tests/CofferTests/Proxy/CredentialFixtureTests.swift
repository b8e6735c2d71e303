import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// The committed legacy credential store (`Fixtures/credentials/v1/legacy-store.db`), migrated
/// by opening a `CredentialStore` on a copy.
@Suite struct CredentialFixtureTests {
    /// `Fixtures/credentials/v1/legacy-store.db`, found from this file's location.
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Proxy
        .deletingLastPathComponent()  // CofferTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures/credentials/v1/legacy-store.db")

    /// The fixture's SQLCipher key and value keys, as its manifest entry records them.
    static let rawKey = Data((0..<32).map { UInt8($0) })
    static let valueKeys: [(id: UInt32, byte: UInt8)] = [(1, 0x11), (2, 0x22)]

    /// The items the fixture holds, declared here independently of the generator.
    static let items: [CredentialItem] = [
        CredentialItem(
            id: CredentialID(service: "api.example.com", account: "alice"), secret: Data("alice-api-token".utf8),
            label: "API token", attributes: ["scope": "read"]),
        CredentialItem(
            id: CredentialID(service: "api.example.com", account: "bob", accessGroup: ""),
            secret: Data([0x00, 0xFF, 0x1F, 0x25, 0x2F, 0x80]), comment: "empty access group, binary secret"),
        CredentialItem(
            id: CredentialID(service: "api.example.com", account: "carol", accessGroup: "team"),
            secret: Data("carol-team-token".utf8)),
        CredentialItem(
            id: CredentialID(service: "smtp.example.org", account: "jürgen@例え.jp"),
            secret: Data("grüße-passwort".utf8), label: "Mail ✉︎"),
        CredentialItem(
            id: CredentialID(service: "smtp.example.org", account: "ci/bot%20", accessGroup: ""),
            secret: Data("ci-bot-password".utf8)),
        CredentialItem(
            id: CredentialID(service: "smtp.example.org", account: "ops", accessGroup: "mail"),
            secret: Data("ops-mail-password".utf8), label: "Rotated"),
    ]

    /// The row keys the items have after the migration.
    static let migratedKeys: Set<String> = [
        "api.example.com/alice", "api.example.com/bob/", "api.example.com/carol/team",
        "smtp.example.org/jürgen@例え.jp", "smtp.example.org/ci%2Fbot%2520/", "smtp.example.org/ops/mail",
    ]

    /// Copies the fixture into `dir`; returns the copy.
    static func copy(into dir: TemporaryDirectory) throws -> URL {
        let url = dir.file("legacy-store.db")
        try FileManager.default.copyItem(at: fixture, to: url)
        return url
    }

    /// Opens `url` (once an earlier `Database` of it has closed) with the fixture's key.
    static func open(_ url: URL) throws -> Database {
        try TestSupport.open(url, options: TestSupport.rawKeyOptions(rawKey))
    }

    /// A keyring holding the fixture's value keys `ids`, the last one current.
    static func keyring(_ ids: [UInt32] = [1, 2]) throws -> Keyring {
        let keyring = Keyring()
        for key in valueKeys where ids.contains(key.id) {
            try keyring.addKey(SymmetricKey(data: Data(repeating: key.byte, count: 32)), id: key.id)
        }
        if let current = ids.last { try keyring.setCurrent(current) }
        return keyring
    }

    /// Every row of the store's collection: key and stored bytes.
    static func rows(of database: Database) throws -> [String: Data] {
        try database.newConnection().read { tx in
            var rows: [String: Data] = [:]
            for key in try tx.allKeys(inCollection: "coffer.credentials") {
                rows[key] = try tx.serializedObject(forKey: key, inCollection: "coffer.credentials")
            }
            return rows
        }
    }

    /// Every item is found by its exact id, and each service lists exactly its items.
    static func expectEveryItem(in store: CredentialStore) throws {
        for item in items {
            #expect(try store.item(for: item.id) == item, "\(item.id)")
        }
        #expect(
            try store.items(forService: "api.example.com").map(\.id)
                == items.filter { $0.id.service == "api.example.com" }.map(\.id))
        #expect(
            try store.items(forService: "smtp.example.org").map(\.id.account) == ["ci/bot%20", "jürgen@例え.jp", "ops"])
        #expect(try store.items(forService: "smtp.example.org", accessGroup: "").map(\.id.account) == ["ci/bot%20"])
        #expect(try store.items(forService: "api.example.com", accessGroup: "").map(\.id.account) == ["bob"])
        #expect(try store.items(forService: "api.example").isEmpty)
    }

    @Test func openingAStoreMovesEveryItemToItsNewKey() throws {
        let dir = TemporaryDirectory()
        let url = try Self.copy(into: dir)
        let migrated: [String: Data]
        let snapshot: UInt64
        do {
            let database = try Self.open(url)
            let store = try CredentialStore(database: database, keyring: try Self.keyring())
            try Self.expectEveryItem(in: store)
            migrated = try Self.rows(of: database)
            snapshot = database.snapshot
        }
        #expect(Set(migrated.keys) == Self.migratedKeys, "the old keys are gone, each item has its new key")

        let database = try Self.open(url)
        let store = try CredentialStore(database: database, keyring: try Self.keyring())
        #expect(try Self.rows(of: database) == migrated, "reopening rewrites nothing")
        #expect(database.snapshot == snapshot, "reopening commits nothing")
        try Self.expectEveryItem(in: store)
    }

    @Test func aRowTheKeyringCannotDecryptStaysUntilItCan() throws {
        let dir = TemporaryDirectory()
        let url = try Self.copy(into: dir)
        let ops = try #require(Self.items.last)
        let opsLegacyKey = "smtp.example.org\u{1F}ops\u{1F}mail"
        do {
            let store = try CredentialStore(database: try Self.open(url), keyring: try Self.keyring([1]))
            for item in Self.items.dropLast() {
                #expect(try store.item(for: item.id) == item, "\(item.id)")
            }
            #expect(
                Set(try Self.rows(of: store.database).keys)
                    == Self.migratedKeys.subtracting(["smtp.example.org/ops/mail"]).union([opsLegacyKey]))
            // The old row may hold any of the ids sharing its old key: it is reported, not skipped.
            for attempt in [
                { _ = try store.item(for: ops.id) }, { _ = try store.items(forService: "smtp.example.org") },
                { try store.add(ops) }, { try store.upsert(ops) }, { try store.update(ops) },
                { try store.delete(ops.id) },
            ] {
                let error = #expect(throws: DatabaseError.self) { try attempt() }
                #expect(error?.code == .serialization)
            }
            #expect(try store.items(forService: "api.example.com").count == 3)
        }
        let store = try CredentialStore(database: try Self.open(url), keyring: try Self.keyring())
        try Self.expectEveryItem(in: store)
        #expect(Set(try Self.rows(of: store.database).keys) == Self.migratedKeys)
    }
}
