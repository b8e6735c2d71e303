import Foundation
import Testing

@Suite("coffer info and ls")
struct InfoAndListCommandTests {
    @Test func infoReportsVersionsSettingsCollectionsAndFiles() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(3, collection: "a") + Workspace.rows(5, collection: "b"))

        let result = try workspace.coffer(["info", "--json"] + workspace.rawKeyArguments)
        #expect(result.status == 0, "\(result.err)")
        let info = try result.json()
        #expect((info["sqlcipherVersion"] as? String)?.hasPrefix("3.") == true)
        #expect((info["sqliteVersion"] as? String)?.isEmpty == false)
        #expect((info["cipher"] as? [String: Any])?["pageSize"] as? Int == 4096)
        #expect((info["cipher"] as? [String: Any])?["hmac"] as? Bool == true)
        #expect(info["rowCount"] as? Int == 8)
        #expect((info["snapshot"] as? Int ?? 0) > 0)
        #expect(info["extensions"] as? [String] == [])
        let collections = try #require(info["collections"] as? [[String: Any]])
        #expect(collections.map { $0["name"] as? String } == ["a", "b"])
        #expect(collections.map { $0["count"] as? Int } == [3, 5])
        let files = try #require(info["files"] as? [String: Any])
        #expect((files["database"] as? Int ?? 0) > 0)
        #expect((info["key"] as? [String: Any])?["kind"] as? String == "rawKeyFile")

        let text = try workspace.coffer(["info"] + workspace.rawKeyArguments)
        #expect(text.status == 0)
        #expect(text.out.contains("SQLCipher"))
        #expect(text.out.contains("Rows:        8 in 2 collection(s)"))
    }

    @Test func lsListsCollectionsAndKeys() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(2, collection: "a") + Workspace.rows(3, collection: "b"))

        let text = try workspace.coffer(["ls"] + workspace.rawKeyArguments)
        #expect(text.status == 0)
        #expect(text.out == "a\t2\nb\t3\n")

        let collections = try workspace.coffer(["ls", "--json"] + workspace.rawKeyArguments).json()
        let entries = try #require(collections["collections"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["a", "b"])
        #expect(entries.map { $0["count"] as? Int } == [2, 3])

        let keys = try workspace.coffer(["ls", "--json", "--collection", "b"] + workspace.rawKeyArguments).json()
        #expect(keys["collection"] as? String == "b")
        #expect(keys["keys"] as? [String] == ["k0", "k1", "k2"])

        let keyText = try workspace.coffer(["ls", "--collection", "a"] + workspace.rawKeyArguments)
        #expect(keyText.out == "k0\nk1\n")
    }
}
