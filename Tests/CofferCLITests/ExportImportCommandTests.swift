import Foundation
import Testing

@Suite("coffer export-json and import-json")
struct ExportImportCommandTests {
    /// Rows of every shape: JSON as the automatic codec writes it, JSON with unusual formatting,
    /// binary values, metadata, the default collection, keys that need escaping.
    static let lines: [String] = [
        #"{"collection":"notes","key":"n1","value":{"title":"Grüße ✓","body":"line\nbreak \"quoted\""},"metadata":null}"#,
        #"{"collection":"notes","key":"we\"ird\nkey ✓","value":[1,2.5,-3e2,true,null],"metadata":{"rev":1}}"#,
        #"{"collection":"","key":"default","value":"in the default collection","metadata":null}"#,
        #"{"collection":"fmt","key":"spaced","value":{"b": 1.0,  "a":1e3},"metadata":null}"#,
        #"{"collection":"bin","key":"b1","valueBase64":"AAECA/7/Cg0=","metadataBase64":"3q2+7w=="}"#,
        #"{"collection":"bin","key":"nullish","value":null,"metadataBase64":"bnVsbA=="}"#,
    ]

    @Test func roundTripIntoANewDatabaseGivesIdenticalRows() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Self.lines + Workspace.rows(1_500, collection: "bulk"))

        let exported = try workspace.coffer(
            ["export-json", "--output", workspace.path("dump.jsonl")] + workspace.rawKeyArguments)
        #expect(exported.status == 0, "\(exported.err)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: workspace.path("dump.jsonl"))[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let copy = ["--database", workspace.path("copy.db"), "--raw-key-file", workspace.path("copy.key")]
        let created = try workspace.coffer(
            ["create", "--database", workspace.path("copy.db"), "--new-raw-key-file", workspace.path("copy.key")])
        try #require(created.status == 0)
        let imported = try workspace.coffer(["import-json", "--input", workspace.path("dump.jsonl")] + copy)
        #expect(imported.status == 0, "\(imported.err)")

        let first = try workspace.coffer(["export-json", "--no-progress"] + workspace.rawKeyArguments)
        let second = try workspace.coffer(["export-json", "--no-progress"] + copy)
        let firstLines = Set(first.out.split(separator: "\n"))
        #expect(firstLines.count == Self.lines.count + 1_500)
        #expect(firstLines == Set(second.out.split(separator: "\n")))

        // The stored bytes themselves are preserved, formatting and binary included.
        let spaced = try workspace.coffer(["get", "--raw", "--collection", "fmt", "spaced"] + copy)
        #expect(spaced.out == #"{"b": 1.0,  "a":1e3}"#)
        let binary = try workspace.coffer(["get", "--raw", "--collection", "bin", "b1"] + copy)
        #expect(binary.stdout == Data(base64Encoded: "AAECA/7/Cg0="))
        let metadata = try workspace.coffer(["get", "--raw", "--metadata", "--collection", "bin", "nullish"] + copy)
        #expect(metadata.out == "null")
        let weird = try workspace.coffer(["get", "--collection", "notes", "we\"ird\nkey ✓"] + copy)
        #expect(weird.out == "[1,2.5,-3e2,true,null]\n")
    }

    @Test func exportsOnlyTheGivenCollections() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(
            Workspace.rows(3, collection: "a") + Workspace.rows(2, collection: "b") + Workspace.rows(1, collection: "c")
        )
        let result = try workspace.coffer(
            ["export-json", "--collection", "a", "--collection", "c", "--no-progress"] + workspace.rawKeyArguments)
        #expect(result.status == 0)
        let collections = try result.out.split(separator: "\n").map { line -> String in
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(row["collection"] as? String)
        }
        #expect(collections.sorted() == ["a", "a", "a", "c"])
    }

    @Test func aBadLineStopsTheImportAndKeepsTheBatchesBefore() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let input = workspace.directory.file("bad.jsonl")
        let lines = Workspace.rows(1_500) + [#"{"collection":"items","key":"broken","value":{"#] + Workspace.rows(10)
        try Data(lines.joined(separator: "\n").utf8).write(to: input)

        let result = try workspace.coffer(
            ["import-json", "--input", input.path, "--batch-size", "1000", "--no-progress"] + workspace.rawKeyArguments)
        #expect(result.status == 1)
        #expect(result.err.contains("line 1501"))
        #expect(result.err.contains("1000 row(s) imported before the failure were kept"))
        let listed = try workspace.coffer(["ls", "--json"] + workspace.rawKeyArguments).json()
        #expect((listed["collections"] as? [[String: Any]])?.first?["count"] as? Int == 1_000)
    }

    @Test func refusesToReplaceAnExportUnlessForced() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try Data("keep".utf8).write(to: workspace.directory.file("out.jsonl"))
        let refused = try workspace.coffer(
            ["export-json", "--output", workspace.path("out.jsonl")] + workspace.rawKeyArguments)
        #expect(refused.status == 1)
        #expect(try String(contentsOfFile: workspace.path("out.jsonl"), encoding: .utf8) == "keep")
        let forced = try workspace.coffer(
            ["export-json", "--force", "--output", workspace.path("out.jsonl")] + workspace.rawKeyArguments)
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: workspace.path("out.jsonl"), encoding: .utf8).isEmpty)
    }
}
