import Foundation
import Testing

/// One `coffer … --json` run expected to fail, and how.
struct FailingCommand: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var code: String
    var status: Int32
    var stdin: String?
    var testDescription: String { arguments.prefix(2).joined(separator: " ") + " → \(code)" }
}

@Suite("coffer --json output")
struct JSONOutputTests {
    /// The raw key file every failing command is given: 32 bytes, not the database's key.
    static let wrongKey = ["--raw-key-file", "wrong.key"]
    static let database = ["--database", "test.db"]

    /// Every command, each with an input it refuses.
    static let failures: [FailingCommand] = [
        FailingCommand(arguments: ["demo", "--database", "short.db"], code: "usage", status: 2),
        FailingCommand(
            arguments: ["create", "--new-raw-key-file", "new.key"] + database, code: "alreadyExists", status: 1),
        FailingCommand(arguments: ["info"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(arguments: ["ls"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(
            arguments: ["get", "k"] + database + ["--raw-key-file", "raw.key"], code: "notFound", status: 1),
        FailingCommand(arguments: ["put", "k"] + database + wrongKey, code: "wrongKey", status: 3, stdin: "1"),
        FailingCommand(
            arguments: ["put", "k"] + database + ["--raw-key-file", "raw.key"], code: "invalidInput", status: 1,
            stdin: "{not json"),
        FailingCommand(arguments: ["rm", "k"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(arguments: ["export-json"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(
            arguments: ["import-json", "--input", "missing.jsonl"] + database + ["--raw-key-file", "raw.key"],
            code: "notFound", status: 1),
        FailingCommand(arguments: ["verify"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(arguments: ["backup", "copy.db"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(
            arguments: ["rotate-key", "--new-raw-key-file", "new.key"] + database + wrongKey, code: "wrongKey",
            status: 3),
        FailingCommand(
            arguments: ["passwd", "--key-file", "pw.key", "--passphrase-env", "WRONG", "--new-passphrase-env", "PW"],
            code: "wrongPassphrase", status: 3),
        FailingCommand(arguments: ["vacuum", "--database", "missing.db"] + wrongKey, code: "io", status: 5),
        FailingCommand(arguments: ["prefs", "ls"] + database + wrongKey, code: "wrongKey", status: 3),
        FailingCommand(
            arguments: ["prefs", "get", "nope"] + database + ["--raw-key-file", "raw.key"], code: "notFound",
            status: 1),
        FailingCommand(
            arguments: ["prefs", "set", "k", "{nope"] + database + ["--raw-key-file", "raw.key"],
            code: "invalidInput", status: 1),
        FailingCommand(arguments: ["ls", "--no-such-option"], code: "usage", status: 2),
        FailingCommand(arguments: ["get"], code: "usage", status: 2),
        FailingCommand(arguments: ["ls", "--key-file", "a", "--raw-key-file", "b"], code: "usage", status: 2),
        FailingCommand(arguments: ["no-such-command"], code: "usage", status: 2),
        FailingCommand(
            arguments: ["ls", "--key-file", "pw.key", "--passphrase-env", "WRONG"] + database,
            code: "wrongPassphrase", status: 3),
    ]

    /// A workspace with a database (raw key), a wrong raw key, a key file with passphrase `PW`,
    /// and a demo key of the wrong length.
    static func prepared() throws -> Workspace {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try Data(repeating: 7, count: 32).write(to: workspace.directory.file("wrong.key"))
        try Data(repeating: 1, count: 31).write(to: workspace.directory.file("short.db.key"))
        let created = try workspace.coffer(
            [
                "create", "--database", workspace.path("pw.db"), "--new-key-file", workspace.path("pw.key"),
                "--passphrase-env", "PW",
            ],
            environment: environment)
        try #require(created.status == 0, "\(created.err)")
        return workspace
    }

    static let secret = "SECRET-\(UUID().uuidString)"
    static let environment = ["PW": secret, "WRONG": secret + "-wrong"]

    @Test(arguments: failures)
    func everyFailureIsOneJSONObjectOnStandardError(_ command: FailingCommand) throws {
        let workspace = try Self.prepared()
        let result = try workspace.coffer(
            command.arguments + ["--json"], environment: Self.environment, stdin: command.stdin.map { Data($0.utf8) })
        #expect(result.status == command.status, "\(result.err)")
        let report = try Self.errorReport(result)
        #expect(report.code == command.code, "\(result.err)")
        #expect(report.exitStatus == result.status)
        #expect(!report.message.isEmpty && !report.message.hasPrefix("coffer: error"), "\(report.message)")
        #expect(!result.err.contains(Self.secret) && !result.out.contains(Self.secret))
        #expect(result.stdout.isEmpty || (try? JSONSerialization.jsonObject(with: result.stdout)) != nil)
    }

    @Test func withoutJSONTheSameFailureIsOneLineOfText() throws {
        let workspace = try Self.prepared()
        let result = try workspace.coffer(["ls"] + Self.database + Self.wrongKey)
        #expect(result.status == 3)
        #expect(result.err.hasPrefix("coffer: error: wrong key"))
    }

    @Test func verifyPrintsItsReportAndFailsInJSON() throws {
        let workspace = try Self.prepared()
        try workspace.importLines(Workspace.rows(200, collection: "big", padding: 3_000))
        // Damage a page of row data near the end of the file (not page 1 or the schema).
        let url = URL(fileURLWithPath: workspace.database)
        var bytes = try Data(contentsOf: url)
        try #require(bytes.count / 4096 > 20)
        let offset = (bytes.count / 4096 - 5) * 4096 + 2_000
        bytes.replaceSubrange(offset..<(offset + 16), with: [UInt8](repeating: 0xFF, count: 16))
        try bytes.write(to: url)

        let result = try workspace.coffer(["verify", "--json"] + workspace.rawKeyArguments)
        #expect(result.status == 6, "\(result.err)")
        #expect((try result.json()["problems"] as? [Any])?.isEmpty == false)
        let report = try Self.errorReport(result)
        #expect(report.code == "verificationFailed" && report.exitStatus == 6)
    }

    @Test func everySuccessIsExactlyOneJSONDocument() throws {
        let workspace = try Self.prepared()
        let raw = workspace.rawKeyArguments
        let lines = Workspace.rows(30)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: workspace.directory.file("rows.jsonl"))
        let commands: [(arguments: [String], stdin: String?)] = [
            (["demo", "--database", workspace.path("demo.db")], nil),
            (
                ["create", "--database", workspace.path("second.db"), "--new-raw-key-file", workspace.path("s.key")],
                nil
            ),
            (["import-json", "--input", workspace.path("rows.jsonl")] + raw, nil),
            (["put", "--collection", "notes", "n1"] + raw, #"{"title":"hi"}"#),
            (["get", "--collection", "notes", "n1"] + raw, nil),
            (["ls"] + raw, nil),
            (["ls", "--collection", "items"] + raw, nil),
            (["info"] + raw, nil),
            (["verify"] + raw, nil),
            (["export-json"] + raw, nil),
            (["export-json", "--collection", "none"] + raw, nil),
            (["export-json", "--output", workspace.path("out.jsonl")] + raw, nil),
            (["rm", "--collection", "items", "k0"] + raw, nil),
            (["prefs", "set", "theme", #""dark""#] + raw, nil),
            (["prefs", "get", "theme"] + raw, nil),
            (["prefs", "ls"] + raw, nil),
            (["backup", workspace.path("copy.db")] + raw, nil),
            (["vacuum"] + raw, nil),
            (["rotate-key", "--new-raw-key-file", workspace.path("rotated.key")] + raw, nil),
            (
                [
                    "passwd", "--key-file", workspace.path("pw.key"), "--passphrase-env", "PW", "--new-passphrase-env",
                    "WRONG",
                ], nil
            ),
            (["ls", "--help"], nil),
        ]
        var documents: [String: Any] = [:]
        for (arguments, stdin) in commands {
            let result = try workspace.coffer(
                arguments + ["--json"], environment: Self.environment, stdin: stdin.map { Data($0.utf8) })
            let name = arguments.prefix(2).joined(separator: " ")
            #expect(result.status == 0, "\(name): \(result.err)")
            #expect(result.err.isEmpty, "\(name) wrote to standard error: \(result.err)")
            let document = try JSONSerialization.jsonObject(with: result.stdout)
            #expect(document is [String: Any], "\(name): \(result.out)")
            documents[name] = document
            #expect(!result.out.contains(Self.secret))
        }
        let export = try #require(documents["export-json --database"] as? [String: Any])
        #expect((export["rows"] as? [[String: Any]])?.count == 31)
        #expect(export["count"] as? Int == 31 && export["complete"] as? Bool == true)
        let empty = try #require(documents["export-json --collection"] as? [String: Any])
        #expect((empty["rows"] as? [Any])?.isEmpty == true && empty["count"] as? Int == 0)
        #expect((documents["export-json --output"] as? [String: Any])?["count"] as? Int == 31)
        #expect((documents["import-json --input"] as? [String: Any])?["imported"] as? Int == 30)
        #expect((documents["prefs get"] as? [String: Any])?["value"] as? String == "dark")
        #expect((documents["ls --help"] as? [String: Any])?["help"] is String)
        // The file written with --output stays JSON Lines, which import-json reads.
        let exported = try String(contentsOf: workspace.directory.file("out.jsonl"), encoding: .utf8)
        #expect(exported.split(separator: "\n").count == 31)
    }

    @Test func helpDocumentsTheJSONErrorFields() throws {
        let help = try Workspace().coffer(["--help"])
        for field in [#""code""#, #""message""#, #""exitStatus""#] { #expect(help.out.contains(field)) }
    }

    /// Standard error as the one JSON error object it must be, and nothing else.
    static func errorReport(_ result: ToolResult) throws -> (code: String, message: String, exitStatus: Int32) {
        let text = result.err.trimmingCharacters(in: .newlines)
        try #require(!text.isEmpty && !text.contains("\n"), "standard error is not one line: \(result.err)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(result.err)")
        #expect(Set(object.keys) == ["code", "message", "exitStatus"])
        return (
            try #require(object["code"] as? String), try #require(object["message"] as? String),
            Int32(try #require(object["exitStatus"] as? Int))
        )
    }
}
