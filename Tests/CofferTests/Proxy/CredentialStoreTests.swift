import CofferTestSupport
import Crypto
import Foundation
import Testing
@testable import Coffer

@Suite struct CredentialStoreTests {
    func makeStore(_ dir: TemporaryDirectory, key: Data = TestSupport.randomKey()) throws -> (Database, CredentialStore) {
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions(key))
        let store = try CredentialStore(database: db, keyring: try Keyring(key: SymmetricKey(size: .bits256), id: 1))
        return (db, store)
    }

    @Test func crudWithAttributesAndTypedErrors() throws {
        let dir = TemporaryDirectory()
        let (_, store) = try makeStore(dir)
        let id = CredentialID(service: "api.example.com", account: "alice")
        var item = CredentialItem(id: id, secret: "s3cret", label: "API token", comment: "rotate monthly")
        item.attributes = ["scope": "read"]
        try store.add(item)
        let duplicate = #expect(throws: DatabaseError.self) { try store.add(item) }
        #expect(duplicate?.code == .duplicateItem)

        let read = try #require(try store.item(for: id))
        #expect(read.secretString == "s3cret")
        #expect(read.label == "API token" && read.comment == "rotate monthly" && read.attributes == ["scope": "read"])
        #expect(read.creationDate == read.modificationDate)

        var changed = read
        changed.secret = Data("n3w".utf8)
        try store.update(changed)
        let updated = try #require(try store.item(for: id))
        #expect(updated.secretString == "n3w")
        #expect(updated.creationDate == read.creationDate)
        #expect(updated.modificationDate >= read.modificationDate)

        let missing = CredentialItem(id: CredentialID(service: "api.example.com", account: "bob"), secret: "x")
        let notFound = #expect(throws: DatabaseError.self) { try store.update(missing) }
        #expect(notFound?.code == .itemNotFound)
        try store.upsert(missing)
        try store.upsert(CredentialItem(id: CredentialID(service: "other", account: "alice"), secret: "y"))
        try store.upsert(CredentialItem(id: CredentialID(service: "api.example.com", account: "carol", accessGroup: "team"),
                                        secret: "z"))

        #expect(try store.items(forService: "api.example.com").map(\.id.account) == ["alice", "bob", "carol"])
        #expect(try store.items(forService: "api.example.com", accessGroup: "team").map(\.id.account) == ["carol"])
        #expect(try store.delete(id))
        #expect(try !store.delete(id))
        #expect(try store.item(for: id) == nil)
    }

    @Test func secretsAreAbsentFromEveryFileEvenWithTheSQLCipherKey() throws {
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let canary = "CREDENTIAL-CANARY-\(UUID().uuidString)"
        do {
            let (db, store) = try makeStore(dir, key: key)
            for i in 0..<5 {
                try store.add(CredentialItem(id: CredentialID(service: "svc", account: "a\(i)"), secret: canary))
            }
            for file in [db.url, db.walURL, db.shmURL] { #expect(!TestSupport.file(file, contains: Data(canary.utf8))) }
        }
        guard let shell = TestSupport.sqlcipherShell else {
            Issue.record("the sqlcipher shell is not installed (scripts/dev.sh installs it)")
            return
        }
        try TestSupport.waitUntilClosed(dir.file("db.sqlite"))
        let text = try TestSupport.runSQLCipherShell(
            shell, database: dir.file("db.sqlite"), rawKey: key,
            script: "SELECT count(*) FROM database2;\nSELECT \"key\", quote(\"data\") FROM database2;\n.dump")
        #expect(text.contains("svc"), "the shell reads the rows: \(text.prefix(200))")
        #expect(!text.contains(canary))
        #expect(!text.uppercased().contains(Data(canary.utf8).map { String(format: "%02X", $0) }.joined()))
    }
}
