import Foundation
import Testing

@Suite("coffer create")
struct CreateCommandTests {
    @Test func createsADatabaseWithANewRawKeyFile() throws {
        let workspace = Workspace()
        let result = try workspace.createWithRawKey()
        #expect(result.out.contains("Created"))
        #expect(workspace.exists("test.db"))
        let key = try Data(contentsOf: URL(fileURLWithPath: workspace.rawKey))
        #expect(key.count == 32)
        let mode = try FileManager.default.attributesOfItem(atPath: workspace.rawKey)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).status == 0)
    }

    @Test func createsADatabaseWithANewKeyFileAndAnEnvironmentPassphrase() throws {
        let workspace = Workspace()
        let environment = ["PW": Workspace.passphrase]
        let created = try workspace.coffer(
            [
                "create", "--database", workspace.database, "--new-key-file", workspace.path("db.key"),
                "--passphrase-env", "PW",
            ],
            environment: environment)
        #expect(created.status == 0, "\(created.err)")
        let info = try workspace.coffer(
            [
                "info", "--json", "--database", workspace.database, "--key-file", workspace.path("db.key"),
                "--passphrase-env", "PW",
            ],
            environment: environment)
        #expect(info.status == 0, "\(info.err)")
        let key = try #require(try info.json()["key"] as? [String: Any])
        #expect(key["kind"] as? String == "keyFile")
        #expect((key["slots"] as? [String]) == ["primary"])
    }

    @Test func takesTheNewPassphraseFromStandardInput() throws {
        let workspace = Workspace()
        let keyFile = workspace.path("db.key")
        let created = try workspace.coffer(
            ["create", "--database", workspace.database, "--new-key-file", keyFile, "--passphrase-stdin"],
            stdin: Data("stdin secret\n".utf8))
        #expect(created.status == 0, "\(created.err)")
        let listed = try workspace.coffer(
            ["ls", "--database", workspace.database, "--key-file", keyFile, "--passphrase-stdin"],
            stdin: Data("stdin secret\n".utf8))
        #expect(listed.status == 0, "\(listed.err)")
    }

    @Test func refusesToReplaceAnExistingDatabase() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let again = try workspace.coffer(
            ["create", "--database", workspace.database, "--new-raw-key-file", workspace.path("other.key")])
        #expect(again.status == 1)
        #expect(again.err.contains("already exists"))
        #expect(!workspace.exists("other.key"))
    }

    @Test func needsExactlyOneKeySource() throws {
        let workspace = Workspace()
        let none = try workspace.coffer(["create", "--database", workspace.database])
        #expect(none.status == 2)
        let two = try workspace.coffer(
            ["create", "--database", workspace.database, "--new-raw-key-file", "a", "--raw-key-file", "b"])
        #expect(two.status == 2)
        #expect(!workspace.exists("test.db"))
    }
}
