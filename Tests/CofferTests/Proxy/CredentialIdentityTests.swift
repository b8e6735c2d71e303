import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// Distinct credential IDs are distinct items, whatever characters their parts hold.
@Suite struct CredentialIdentityTests {
    /// A store in a fresh database inside `dir`.
    func makeStore(_ dir: TemporaryDirectory) throws -> CredentialStore {
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        return try CredentialStore(database: db, keyring: try Keyring(key: SymmetricKey(size: .bits256), id: 1))
    }

    @Test func idsJoiningToTheSameTextAreDistinctItems() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let first = CredentialID(service: "svc\u{1F}x", account: "acct")
        let second = CredentialID(service: "svc", account: "x\u{1F}acct")
        try store.add(CredentialItem(id: first, secret: "first-secret"))
        try store.add(CredentialItem(id: second, secret: "second-secret"))

        #expect(try store.item(for: first)?.secretString == "first-secret")
        #expect(try store.item(for: second)?.secretString == "second-secret")
        #expect(try store.items(forService: "svc").map(\.id) == [second])
        #expect(try store.items(forService: "svc\u{1F}x").map(\.id) == [first])
    }

    @Test func nilAndEmptyAccessGroupsAreDistinctItems() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let noGroup = CredentialID(service: "svc", account: "acct", accessGroup: nil)
        let emptyGroup = CredentialID(service: "svc", account: "acct", accessGroup: "")
        try store.add(CredentialItem(id: noGroup, secret: "no-group"))
        try store.add(CredentialItem(id: emptyGroup, secret: "empty-group"))

        #expect(try store.item(for: noGroup)?.secretString == "no-group")
        #expect(try store.item(for: emptyGroup)?.secretString == "empty-group")
        #expect(try store.item(for: noGroup)?.id == noGroup)
        #expect(try store.item(for: emptyGroup)?.id == emptyGroup)
        #expect(try store.items(forService: "svc", accessGroup: "").map(\.id) == [emptyGroup])
        #expect(Set(try store.items(forService: "svc").map(\.id)) == [noGroup, emptyGroup])
    }

    @Test func deletingOneOfTwoSuchItemsLeavesTheOther() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let noGroup = CredentialID(service: "svc", account: "acct", accessGroup: nil)
        let emptyGroup = CredentialID(service: "svc", account: "acct", accessGroup: "")
        let joinedFirst = CredentialID(service: "svc\u{1F}x", account: "acct")
        let joinedSecond = CredentialID(service: "svc", account: "x\u{1F}acct")
        for id in [noGroup, emptyGroup, joinedFirst, joinedSecond] {
            try store.add(CredentialItem(id: id, secret: "\(id)"))
        }

        #expect(try store.delete(noGroup))
        #expect(try store.item(for: noGroup) == nil)
        #expect(try store.item(for: emptyGroup)?.secretString == "\(emptyGroup)")
        #expect(try store.delete(joinedFirst))
        #expect(try store.item(for: joinedFirst) == nil)
        #expect(try store.item(for: joinedSecond)?.secretString == "\(joinedSecond)")
        #expect(try !store.delete(noGroup))
    }

    @Test func updateAndUpsertTouchOnlyTheirOwnItem() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let first = CredentialID(service: "svc\u{1F}x", account: "acct")
        let second = CredentialID(service: "svc", account: "x\u{1F}acct")
        try store.add(CredentialItem(id: first, secret: "first"))
        let missing = #expect(throws: DatabaseError.self) {
            try store.update(CredentialItem(id: second, secret: "second"))
        }
        #expect(missing?.code == .itemNotFound)
        try store.upsert(CredentialItem(id: second, secret: "second"))
        #expect(try store.item(for: first)?.secretString == "first")
        #expect(try store.item(for: second)?.secretString == "second")
    }

    @Test func partsWithSeparatorsEscapesAndCombiningMarksStayUnderTheirService() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let ids = [
            CredentialID(service: "a", account: "\u{301}b"),
            CredentialID(service: "a/b", account: "c"),
            CredentialID(service: "a", account: "b/c", accessGroup: "%2F"),
            CredentialID(service: "a%2Fb", account: "c"),
            CredentialID(service: "", account: "", accessGroup: ""),
            CredentialID(service: "", account: ""),
        ]
        for id in ids { try store.add(CredentialItem(id: id, secret: "\(id)")) }
        for id in ids { #expect(try store.item(for: id)?.id == id) }
        #expect(try store.items(forService: "a").map(\.id.account) == ["b/c", "\u{301}b"])
        #expect(try store.items(forService: "a/b").map(\.id.account) == ["c"])
        #expect(try store.items(forService: "a%2Fb").map(\.id.account) == ["c"])
        #expect(try store.items(forService: "").count == 2)
        #expect(try store.items(forService: "a", accessGroup: "%2F").map(\.id.account) == ["b/c"])
    }
}
