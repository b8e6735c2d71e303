import CofferTestSupport
import Foundation
import Testing

/// A temporary directory with a database and its keys, and helpers to run `coffer` on them.
final class Workspace {
    /// The directory; removed with everything in it when the workspace is released.
    let directory = TemporaryDirectory("coffer-cli")

    /// A passphrase used for key files in tests; passed through the environment only.
    static let passphrase = "pw-\(UUID().uuidString)"

    /// The database path.
    var database: String { path("test.db") }
    /// The raw key file path.
    var rawKey: String { path("raw.key") }
    /// `--database … --raw-key-file …`.
    var rawKeyArguments: [String] { ["--database", database, "--raw-key-file", rawKey] }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { directory.file(name).path }

    /// Whether `name` exists inside the directory.
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Runs `coffer arguments` in the directory.
    func coffer(
        _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil
    ) throws -> ToolResult {
        let result = try CofferTool.run(arguments, in: directory.url, environment: environment, stdin: stdin)
        #expect(!result.timedOut, "coffer \(arguments.first ?? "") did not finish in time")
        return result
    }

    /// Creates the database with a new raw key file.
    @discardableResult
    func createWithRawKey() throws -> ToolResult {
        let result = try coffer(["create", "--database", database, "--new-raw-key-file", rawKey])
        try #require(result.status == 0, "create failed: \(result.err)")
        return result
    }

    /// Imports `lines` (JSON Lines) into the database with the raw key.
    func importLines(_ lines: [String], extra: [String] = ["--no-progress"]) throws {
        let input = directory.file("import-\(UUID().uuidString).jsonl")
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: input)
        let result = try coffer(["import-json"] + rawKeyArguments + ["--input", input.path] + extra)
        try #require(result.status == 0, "import failed: \(result.err)")
    }

    /// `count` rows `{"i":n}` with keys `k0…` in `collection`, as JSON Lines.
    static func rows(_ count: Int, collection: String = "items", padding: Int = 0) -> [String] {
        let pad = String(repeating: "x", count: padding)
        return (0..<count).map { index in
            #"{"collection":"\#(collection)","key":"k\#(index)","value":{"i":\#(index),"pad":"\#(pad)"},"metadata":null}"#
        }
    }

    /// The names of the files in the directory (hidden ones included, the harness's own excluded).
    func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasPrefix(".run-") }
    }
}
