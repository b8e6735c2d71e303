import CofferTestSupport
import Crypto
import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Coffer

/// What opening a store does with rows in the old key format that do not simply move.
@Suite struct CredentialMigrationTests {
    static let collection = "coffer.credentials"
    let key = TestSupport.randomKey()
    let valueKey1 = SymmetricKey(size: .bits256)
    let valueKey2 = SymmetricKey(size: .bits256)

    /// A keyring with value key 1 and, when asked, key 2 (then current).
    func keyring(withKey2: Bool) throws -> Keyring {
        let keyring = try Keyring(key: valueKey1, id: 1)
        if withKey2 {
            try keyring.addKey(valueKey2, id: 2)
            try keyring.setCurrent(2)
        }
        return keyring
    }

    /// Writes `rows` straight into the store's collection, through its chain, as an older Coffer
    /// (or a bug) left them.
    func write(_ rows: [(key: String, item: CredentialItem)], at url: URL, keyring: Keyring) throws {
        let database = try TestSupport.open(url, options: TestSupport.rawKeyOptions(key))
        _ = try CredentialStore(database: database, keyring: keyring)
        try database.newConnection().readWrite { tx in
            for row in rows { try tx.setObject(row.item, forKey: row.key, inCollection: Self.collection) }
        }
    }

    /// Every row of the collection: key and stored bytes.
    func rows(at url: URL) throws -> [String: Data] {
        let database = try TestSupport.open(url, options: TestSupport.rawKeyOptions(key))
        return try database.newConnection().read { tx in
            var rows: [String: Data] = [:]
            for key in try tx.allKeys(inCollection: Self.collection) {
                rows[key] = try tx.serializedObject(forKey: key, inCollection: Self.collection)
            }
            return rows
        }
    }

    @Test(arguments: ["under its new key", "under a second old key"])
    func twoRowsOfOneItemAreReportedNotOverwritten(_ secondRow: String) throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let id = CredentialID(service: "svc", account: "acct", accessGroup: "group")
        let legacy = CredentialItem(id: id, secret: "old")
        let other = CredentialItem(id: id, secret: "other")
        let otherKey = secondRow == "under its new key" ? "svc/acct/group" : "svc\u{1F}\u{1F}"
        try write(
            [(CredentialKey.legacyKey(for: id), legacy), (otherKey, other)], at: url,
            keyring: try keyring(withKey2: false))
        let before = try rows(at: url)

        let error = #expect(throws: DatabaseError.self) {
            _ = try CredentialStore(
                database: try TestSupport.open(url, options: TestSupport.rawKeyOptions(key)),
                keyring: try keyring(withKey2: false))
        }
        #expect(error?.code == .duplicateItem)
        #expect(error?.key == "svc/acct/group")
        #expect(error?.collection == Self.collection)
        #expect(try rows(at: url) == before, "nothing is moved or overwritten")
    }

    @Test func anUndecryptableRowIsLoggedWithoutItsSecret() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        let canary = "CREDENTIAL-CANARY-\(UUID().uuidString)"
        let id = CredentialID(service: "svc", account: "acct")
        try write(
            [(CredentialKey.legacyKey(for: id), CredentialItem(id: id, secret: canary, label: canary))], at: url,
            keyring: try keyring(withKey2: true))

        let logs = InMemoryLogHandler()
        var options = TestSupport.rawKeyOptions(key)
        options.logger = Logger(label: "test", factory: { _ in logs })
        let store = try CredentialStore(
            database: try TestSupport.open(url, options: options), keyring: try keyring(withKey2: false))
        #expect(store.legacyRowsRemain)
        let warnings = logs.entries.filter { $0.message.description.contains("old row-key format") }
        #expect(warnings.count == 1)
        let text = warnings.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(text.contains("svc%1Facct%1F"), "the row is named: \(text)")
        #expect(text.contains("unknownKeyID"), "the reason is named: \(text)")
        #expect(!text.contains(canary))
    }
}
