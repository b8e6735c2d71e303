import CofferTestSupport
import Crypto
import Foundation
import Testing
@testable import Coffer

/// The committed legacy credential store (`Fixtures/credentials/v1/legacy-store.db`) read
/// through `CredentialStore`.
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

    /// A copy of the fixture in `dir`, opened with its key.
    static func openCopy(in dir: TemporaryDirectory) throws -> Database {
        let url = dir.file("legacy-store.db")
        try FileManager.default.copyItem(at: fixture, to: url)
        return try Database(url: url, options: TestSupport.rawKeyOptions(rawKey))
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

    @Test func everyItemIsFoundByItsID() throws {
        let dir = TemporaryDirectory()
        let store = try CredentialStore(database: try Self.openCopy(in: dir), keyring: try Self.keyring())
        for item in Self.items {
            #expect(try store.item(for: item.id) == item, "\(item.id)")
        }
        #expect(
            try store.items(forService: "api.example.com").map(\.id)
                == Self.items.filter { $0.id.service == "api.example.com" }.map(\.id))
        #expect(
            try store.items(forService: "smtp.example.org").map(\.id.account) == ["ci/bot%20", "jürgen@例え.jp", "ops"])
    }
}
