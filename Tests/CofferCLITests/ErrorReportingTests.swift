import Foundation
import Testing

@Suite("coffer error messages and exit codes")
struct ErrorReportingTests {
    /// Checks the documented shape of an error: the status, and one line starting `coffer: error:`.
    private func expectError(_ result: ToolResult, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.err)")
        #expect(result.err.hasPrefix("coffer: error: "), "\(result.err)")
        #expect(result.err.contains(text), "\(result.err)")
        #expect(result.err.filter { $0 == "\n" }.count == 1, "\(result.err)")
    }

    @Test func aWrongRawKeyExitsWith3() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try Data(repeating: 7, count: 32).write(to: workspace.directory.file("wrong.key"))
        let result = try workspace.coffer([
            "info", "--database", workspace.database, "--raw-key-file", workspace.path("wrong.key"),
        ])
        expectError(result, status: 3, containing: "wrong key")
    }

    @Test func keyProblemsExitWith3() throws {
        let workspace = Workspace()
        let keyFile = workspace.path("db.key")
        try #require(
            try workspace.coffer(
                ["create", "--database", workspace.database, "--new-key-file", keyFile, "--passphrase-env", "PW"],
                environment: ["PW": "right"]
            ).status == 0)
        let keyArguments = ["--database", workspace.database, "--key-file", keyFile]
        expectError(
            try workspace.coffer(["ls", "--passphrase-env", "PW"] + keyArguments, environment: ["PW": "wrong"]),
            status: 3, containing: "wrong passphrase")
        expectError(
            try workspace.coffer(["ls", "--passphrase-env", "UNSET"] + keyArguments), status: 3, containing: "not set")
        expectError(
            try workspace.coffer(["ls", "--database", workspace.database]), status: 3, containing: "key required")
        expectError(try workspace.coffer(["ls"] + keyArguments), status: 3, containing: "--passphrase-env")
        try Data(repeating: 1, count: 31).write(to: workspace.directory.file("short.key"))
        expectError(
            try workspace.coffer([
                "ls", "--database", workspace.database, "--raw-key-file", workspace.path("short.key"),
            ]),
            status: 3, containing: "exactly 32 bytes")
    }

    @Test func notADatabaseExitsWith4AndAMissingOneWith5() throws {
        let workspace = Workspace()
        try Data(repeating: 0x41, count: 4096).write(to: workspace.directory.file("text.db"))
        try Data(repeating: 9, count: 32).write(to: workspace.directory.file("raw.key"))
        expectError(
            try workspace.coffer(["ls", "--database", workspace.path("text.db"), "--raw-key-file", workspace.rawKey]),
            status: 4, containing: "not a database")
        expectError(
            try workspace.coffer(["ls", "--database", workspace.path("missing.db"), "--raw-key-file", workspace.rawKey]
            ),
            status: 5, containing: "no database at")
        #expect(!workspace.exists("missing.db"))
    }

    @Test func usageErrorsExitWith2() throws {
        let workspace = Workspace()
        expectError(try workspace.coffer(["ls", "--no-such-option"]), status: 2, containing: "no-such-option")
        expectError(
            try workspace.coffer(["ls", "--key-file", "a", "--raw-key-file", "b"]), status: 2,
            containing: "cannot be used together")
        expectError(try workspace.coffer(["get"]), status: 2, containing: "key")
    }

    @Test func helpDocumentsTheExitCodes() throws {
        let workspace = Workspace()
        let help = try workspace.coffer(["--help"])
        #expect(help.status == 0)
        for code in ["0 ", "1 ", "2 ", "3 ", "4 ", "5 ", "6 ", "130"] {
            #expect(help.out.contains("\n  \(code)"), "exit code \(code) is not documented")
        }
        #expect(help.out.contains("Exit status"))
    }

    @Test func aPassphraseGivenInTheEnvironmentNeverAppearsInOutput() throws {
        let workspace = Workspace()
        let secret = "SECRET-\(UUID().uuidString)"
        let environment = ["PW": secret, "NEWPW": secret + "-new"]
        let keyFile = workspace.path("db.key")
        let keyArguments = ["--database", workspace.database, "--key-file", keyFile, "--passphrase-env", "PW"]
        var results: [ToolResult] = []
        results.append(
            try workspace.coffer(
                ["create", "--database", workspace.database, "--new-key-file", keyFile, "--passphrase-env", "PW"],
                environment: environment))
        results.append(
            try workspace.coffer(["put", "k"] + keyArguments, environment: environment, stdin: Data("1".utf8)))
        for command in [["info"], ["info", "--json"], ["ls"], ["get", "k"], ["verify"], ["export-json"]] {
            results.append(try workspace.coffer(command + keyArguments, environment: environment))
        }
        results.append(
            try workspace.coffer(
                [
                    "backup", workspace.path("copy.db"), "--new-key-file", workspace.path("copy.key"),
                    "--new-passphrase-env",
                    "NEWPW",
                ] + keyArguments,
                environment: environment))
        // Failures too: a wrong passphrase, a key file used where none exists, a bad raw key.
        results.append(try workspace.coffer(["ls"] + keyArguments, environment: ["PW": secret + "x"]))
        results.append(
            try workspace.coffer(
                ["ls", "--database", workspace.path("none.db"), "--key-file", keyFile, "--passphrase-env", "PW"],
                environment: environment))
        results.append(
            try workspace.coffer(
                ["passwd", "--key-file", keyFile, "--passphrase-env", "PW", "--new-passphrase-env", "NEWPW"],
                environment: environment))
        #expect(results.filter { $0.status == 0 }.count >= 9)
        for result in results {
            #expect(!result.out.contains(secret) && !result.err.contains(secret))
        }
    }
}
