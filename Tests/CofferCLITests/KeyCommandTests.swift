import Foundation
import Testing

@Suite("coffer backup, rotate-key, passwd and vacuum")
struct KeyCommandTests {
    @Test func backupWithTheSameKeyOpensWithIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(50))
        let backup = try workspace.coffer(["backup", workspace.path("copy.db")] + workspace.rawKeyArguments)
        #expect(backup.status == 0, "\(backup.err)")
        #expect(backup.err.contains("backup: done"))
        let listed = try workspace.coffer([
            "ls", "--database", workspace.path("copy.db"), "--raw-key-file", workspace.rawKey,
        ])
        #expect(listed.out == "items\t50\n")
    }

    @Test func backupWithANewKeyFileOpensOnlyWithIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(10))
        let environment = ["NEWPW": Workspace.passphrase]
        let backup = try workspace.coffer(
            [
                "backup", workspace.path("copy.db"), "--new-key-file", workspace.path("copy.key"),
                "--new-passphrase-env",
                "NEWPW",
            ] + workspace.rawKeyArguments,
            environment: environment)
        #expect(backup.status == 0, "\(backup.err)")
        let withNewKey = try workspace.coffer(
            [
                "verify", "--no-progress", "--database", workspace.path("copy.db"), "--key-file",
                workspace.path("copy.key"),
                "--passphrase-env", "NEWPW",
            ],
            environment: environment)
        #expect(withNewKey.status == 0, "\(withNewKey.err)")
        let withOldKey = try workspace.coffer([
            "ls", "--database", workspace.path("copy.db"), "--raw-key-file", workspace.rawKey,
        ])
        #expect(withOldKey.status == 3)
    }

    @Test func backupRefusesAnExistingDestinationUnlessForced() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try Data("other".utf8).write(to: workspace.directory.file("copy.db"))
        let refused = try workspace.coffer(["backup", workspace.path("copy.db")] + workspace.rawKeyArguments)
        #expect(refused.status == 1)
        #expect(refused.err.contains("already exists"))
        let forced = try workspace.coffer(["backup", "--force", workspace.path("copy.db")] + workspace.rawKeyArguments)
        #expect(forced.status == 0, "\(forced.err)")
    }

    @Test func rotateKeyToANewRawKeyRetiresTheOldOne() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(30))
        let rotated = try workspace.coffer(
            ["rotate-key", "--new-raw-key-file", workspace.path("new.key")] + workspace.rawKeyArguments)
        #expect(rotated.status == 0, "\(rotated.err)")
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).status == 3)
        let listed = try workspace.coffer([
            "ls", "--database", workspace.database, "--raw-key-file", workspace.path("new.key"),
        ])
        #expect(listed.out == "items\t30\n")
    }

    @Test func rotateKeyToANewKeyFile() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(5))
        let environment = ["NEWPW": Workspace.passphrase]
        let rotated = try workspace.coffer(
            ["rotate-key", "--new-key-file", workspace.path("new.cofferkey"), "--new-passphrase-env", "NEWPW"]
                + workspace.rawKeyArguments,
            environment: environment)
        #expect(rotated.status == 0, "\(rotated.err)")
        let listed = try workspace.coffer(
            [
                "ls", "--database", workspace.database, "--key-file", workspace.path("new.cofferkey"),
                "--passphrase-env",
                "NEWPW",
            ],
            environment: environment)
        #expect(listed.out == "items\t5\n")
        #expect(try workspace.coffer(["rotate-key"] + workspace.rawKeyArguments).status == 2)
    }

    @Test func passwdChangesTheKeyFilePassphrase() throws {
        let workspace = Workspace()
        let keyFile = workspace.path("db.key")
        let environment = ["OLD": "old passphrase", "NEW": "new passphrase"]
        try #require(
            try workspace.coffer(
                ["create", "--database", workspace.database, "--new-key-file", keyFile, "--passphrase-env", "OLD"],
                environment: environment
            ).status == 0)
        let keyArguments = ["--database", workspace.database, "--key-file", keyFile]

        let wrongOld = try workspace.coffer(
            ["passwd", "--key-file", keyFile, "--passphrase-env", "NEW", "--new-passphrase-env", "OLD"],
            environment: environment)
        #expect(wrongOld.status == 3)
        #expect(
            try workspace.coffer(["ls", "--passphrase-env", "OLD"] + keyArguments, environment: environment).status == 0
        )

        let changed = try workspace.coffer(
            ["passwd", "--key-file", keyFile, "--passphrase-env", "OLD", "--new-passphrase-env", "NEW"],
            environment: environment)
        #expect(changed.status == 0, "\(changed.err)")
        let withOld = try workspace.coffer(["ls", "--passphrase-env", "OLD"] + keyArguments, environment: environment)
        #expect(withOld.status == 3)
        #expect(withOld.err.contains("wrong passphrase"))
        #expect(
            try workspace.coffer(["ls", "--passphrase-env", "NEW"] + keyArguments, environment: environment).status == 0
        )

        // Both passphrases from standard input: current first, new second.
        let viaStdin = try workspace.coffer(
            ["passwd", "--key-file", keyFile, "--passphrase-stdin", "--new-passphrase-stdin"],
            stdin: Data("new passphrase\nthird passphrase\n".utf8))
        #expect(viaStdin.status == 0, "\(viaStdin.err)")
        #expect(
            try workspace.coffer(["ls", "--passphrase-stdin"] + keyArguments, stdin: Data("third passphrase\n".utf8))
                .status == 0)
    }

    @Test func vacuumKeepsTheDataAndTheKey() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(
            Workspace.rows(100, collection: "a", padding: 500) + Workspace.rows(3, collection: "b"))
        try #require(
            try workspace.coffer(["rm", "--collection", "a", "--all"] + workspace.rawKeyArguments).status == 0)
        let before = try FileManager.default.attributesOfItem(atPath: workspace.database)[.size] as? Int ?? 0
        let vacuum = try workspace.coffer(["vacuum"] + workspace.rawKeyArguments)
        #expect(vacuum.status == 0, "\(vacuum.err)")
        let after = try FileManager.default.attributesOfItem(atPath: workspace.database)[.size] as? Int ?? 0
        #expect(after <= before)
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).out == "b\t3\n")
    }
}
