import Foundation
import Testing

@Suite("coffer progress and Ctrl-C")
struct ProgressAndCancellationTests {
    @Test func progressIsPlainLinesWhenStandardErrorIsNotATerminal() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let input = workspace.directory.file("rows.jsonl")
        try Data(Workspace.rows(2_500).map { $0 + "\n" }.joined().utf8).write(to: input)

        // How many interim lines appear depends on the machine's speed (ProgressThrottleTests pins
        // the rule with a fake clock); the summary always does, and nothing draws a bar.
        let imported = try workspace.coffer(["import-json", "--input", input.path] + workspace.rawKeyArguments)
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.err.contains("import-json: done, 2500 rows"))
        #expect(!imported.err.contains("\r") && !imported.err.contains("\u{1B}"))

        let verified = try workspace.coffer(["verify"] + workspace.rawKeyArguments)
        #expect(verified.err.contains("verify: done, 2500 rows"))

        let exported = try workspace.coffer(
            ["export-json", "--output", workspace.path("out.jsonl")] + workspace.rawKeyArguments)
        #expect(exported.err.contains("export-json: done, 2500 rows"))

        let quiet = try workspace.coffer(["verify", "--no-progress"] + workspace.rawKeyArguments)
        #expect(quiet.err.isEmpty)
    }

    @Test func aBigImportWithoutATerminalPrintsFewProgressLines() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let input = workspace.directory.file("rows.jsonl")
        try Data(Workspace.rows(40_000).map { $0 + "\n" }.joined().utf8).write(to: input)

        let imported = try workspace.coffer(
            ["import-json", "--input", input.path, "--batch-size", "100"] + workspace.rawKeyArguments)
        #expect(imported.status == 0, "\(imported.err)")
        let lines = imported.err.split(separator: "\n")
        // 400 batches used to print 40 lines; at most one per 10 % (and per second) now.
        let interim = lines.filter { $0.hasPrefix("import-json: ") && !$0.hasPrefix("import-json: done") }
        #expect(interim.count <= 10, "\(imported.err)")
        #expect(lines.last?.hasPrefix("import-json: done, 40000 rows") == true, "\(imported.err)")
        #expect(lines.count == interim.count + 1, "only progress on standard error: \(imported.err)")
    }

    @Test func anInterruptedBackupLeavesNoFile() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(300, padding: 1_000))
        let running = try RunningTool(
            [
                "backup", workspace.path("copy.db"), "--new-raw-key-file", workspace.path("copy.key"),
                "--debug-pause-after",
                "1",
            ] + workspace.rawKeyArguments,
            in: workspace.directory.url)
        #expect(running.waitForStandardError(containing: "paused for testing"))
        running.interrupt()
        let result = running.wait()
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("coffer: error: cancelled; no backup was written"))
        #expect(!workspace.exists("copy.db"))
        #expect(!workspace.exists("copy.key"), "the key file made for the backup is removed")
        #expect(try workspace.fileNames().filter { $0.contains("partial") }.isEmpty)
    }

    @Test func anInterruptedExportLeavesNoFile() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(100))
        let running = try RunningTool(
            ["export-json", "--output", workspace.path("out.jsonl"), "--debug-pause-after", "10"]
                + workspace.rawKeyArguments,
            in: workspace.directory.url)
        #expect(running.waitForStandardError(containing: "paused for testing"))
        running.interrupt()
        let result = running.wait()
        #expect(result.status == 130, "\(result.err)")
        #expect(!workspace.exists("out.jsonl"))
        #expect(try workspace.fileNames().filter { $0.contains("partial") }.isEmpty)
    }

    @Test func anInterruptedImportKeepsTheCommittedBatchesOnly() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let input = workspace.directory.file("rows.jsonl")
        try Data(Workspace.rows(2_500).map { $0 + "\n" }.joined().utf8).write(to: input)
        let running = try RunningTool(
            ["import-json", "--input", input.path, "--batch-size", "1000", "--debug-pause-after", "1000"]
                + workspace.rawKeyArguments,
            in: workspace.directory.url)
        #expect(running.waitForStandardError(containing: "paused for testing"))
        running.interrupt()
        let result = running.wait()
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("the 1000 row(s) imported before were kept"))
        let listed = try workspace.coffer(["ls"] + workspace.rawKeyArguments)
        #expect(listed.out == "items\t1000\n")
    }

    @Test func anInterruptedKeyRotationKeepsTheOldKey() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(40))
        // The pause point is the library's last safe moment: the new copy is made, not yet swapped in.
        let running = try RunningTool(
            ["rotate-key", "--new-raw-key-file", workspace.path("new.key"), "--debug-pause-after", "1"]
                + workspace.rawKeyArguments,
            in: workspace.directory.url)
        #expect(running.waitForStandardError(containing: "paused for testing"))
        running.interrupt()
        let result = running.wait()
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("the database keeps its old key"))
        #expect(!workspace.exists("new.key"))
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).out == "items\t40\n")
        #expect(try workspace.fileNames().filter { $0.contains("partial") }.isEmpty)
    }
}
