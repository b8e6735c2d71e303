import Coffer
import Foundation

/// The items of the legacy credential-store fixture, and the row keys `CredentialStore` gave them
/// up to revision 99541a4.
enum CredentialFixtureData {
    /// The collection `CredentialStore` uses by default.
    static let collection = "coffer.credentials"

    /// Items written under keyring key 1: two services, a nil and an empty access group, a named
    /// group, a multi-byte account, an account holding the new format's separator and escape
    /// character, and binary secrets.
    static let itemsKey1: [CredentialItem] = [
        item(
            "api.example.com", "alice", nil, secret: Data("alice-api-token".utf8), label: "API token",
            attributes: ["scope": "read"]),
        item(
            "api.example.com", "bob", "", secret: Data([0x00, 0xFF, 0x1F, 0x25, 0x2F, 0x80]),
            comment: "empty access group, binary secret"),
        item("api.example.com", "carol", "team", secret: Data("carol-team-token".utf8)),
        item("smtp.example.org", "jürgen@例え.jp", nil, secret: Data("grüße-passwort".utf8), label: "Mail ✉︎"),
        item("smtp.example.org", "ci/bot%20", "", secret: Data("ci-bot-password".utf8)),
    ]

    /// An item written after key 2 became current: opening with a keyring that lacks key 2 cannot
    /// decrypt it.
    static let itemsKey2: [CredentialItem] = [
        item("smtp.example.org", "ops", "mail", secret: Data("ops-mail-password".utf8), label: "Rotated")
    ]

    /// The row key `CredentialStore` used up to revision 99541a4.
    ///
    /// Service, account and access group joined with U+001F, unescaped, a nil group written as "".
    /// Kept here verbatim so the generator goes on writing that format after the store moved on.
    static func legacyKey(_ id: CredentialID) -> String {
        id.service + "\u{1F}" + id.account + "\u{1F}" + (id.accessGroup ?? "")
    }

    /// A fixture row of `item` under its legacy key.
    static func row(_ item: CredentialItem) -> FixtureRow {
        FixtureRow(collection, legacyKey(item.id), item)
    }

    private static func item(
        _ service: String, _ account: String, _ accessGroup: String?, secret: Data, label: String? = nil,
        comment: String? = nil, attributes: [String: String] = [:]
    ) -> CredentialItem {
        CredentialItem(
            id: CredentialID(service: service, account: account, accessGroup: accessGroup), secret: secret,
            label: label, comment: comment, attributes: attributes)
    }
}
