import Foundation
import Testing

/// Ctrl-C that lands late in a long command: before the command's point of no return it cancels
/// (status 130, nothing new left behind); after it, `coffer` says plainly that the work finished
/// and exits 0. Never "cancelling…" followed by a finished command.
///
/// Each test stops the real `coffer` at a known point (`COFFER_DEBUG_PAUSE_AT` or
/// `--debug-pause-after`), waits for the line announcing the pause, and only then sends SIGINT.
@Suite("coffer Ctrl-C late in a command")
struct LateInterruptionTests {
    static let cancelling = "cancelling…"
    static let tooLate = "too late to cancel"

    /// Starts `coffer arguments`, interrupts it at its announced pause and waits for it to end.
    private func interruptAtPause(
        _ arguments: [String], in workspace: Workspace, pauseAt point: String? = nil
    ) throws -> ToolResult {
        let environment = point.map { ["COFFER_DEBUG_PAUSE_AT": $0] } ?? [:]
        let running = try RunningTool(arguments, in: workspace.directory.url, environment: environment)
        let paused = running.waitForStandardError(containing: "paused for testing")
        if paused { running.interrupt() }
        let result = running.wait(timeout: .seconds(60))
        #expect(paused, "coffer \(arguments[0]) never paused: \(result.err)")
        #expect(!result.timedOut)
        return result
    }

    /// Names in the workspace that a command writes beside its output and must not leave behind.
    private func leftovers(in workspace: Workspace) throws -> [String] {
        try workspace.fileNames().filter { $0.contains("coffer-partial") || $0.contains("coffer-previous") }
    }

    // MARK: backup

    @Test func ctrlCWhileTheBackupIsVerifiedCancelsIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(300, padding: 1_000))
        let result = try interruptAtPause(
            ["backup", workspace.path("copy.db"), "--new-raw-key-file", workspace.path("copy.key")]
                + workspace.rawKeyArguments,
            in: workspace, pauseAt: "verification")
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("coffer: error: cancelled; no backup was written"))
        #expect(!result.out.contains("Backed up"))
        #expect(!workspace.exists("copy.db"))
        #expect(!workspace.exists("copy.key"), "the key file made for the backup is removed")
        #expect(try leftovers(in: workspace).isEmpty)
    }

    @Test func ctrlCWhileAForcedBackupIsVerifiedKeepsThePreviousFile() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(20))
        let first = try workspace.coffer(["backup", workspace.path("copy.db")] + workspace.rawKeyArguments)
        try #require(first.status == 0, "\(first.err)")
        let previous = try Data(contentsOf: workspace.directory.file("copy.db"))
        try workspace.importLines(Workspace.rows(300, padding: 1_000))

        let result = try interruptAtPause(
            ["backup", workspace.path("copy.db"), "--force"] + workspace.rawKeyArguments,
            in: workspace, pauseAt: "verification")
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("cancelled"))
        #expect(try Data(contentsOf: workspace.directory.file("copy.db")) == previous, "the old backup is back")
        #expect(try leftovers(in: workspace).isEmpty)
    }

    @Test func ctrlCAfterTheBackupIsInPlaceSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(40))
        let result = try interruptAtPause(
            ["backup", workspace.path("copy.db"), "--new-raw-key-file", workspace.path("copy.key")]
                + workspace.rawKeyArguments,
            in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): the backup is complete"))
        #expect(!result.err.contains(Self.cancelling))
        #expect(result.out.contains("Backed up"))
        let listed = try workspace.coffer(["ls", "--database", workspace.path("copy.db"), "--raw-key-file", "copy.key"])
        #expect(listed.out == "items\t40\n", "\(listed.err)")
        #expect(try leftovers(in: workspace).isEmpty)
    }

    // MARK: export-json

    @Test func ctrlCAfterTheLastRowButBeforeTheExportIsInPlaceCancelsIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(100))
        // The pause comes after the 100th (last) row is written: what is left is moving the file into place.
        let result = try interruptAtPause(
            ["export-json", "--output", workspace.path("out.jsonl"), "--debug-pause-after", "100"]
                + workspace.rawKeyArguments,
            in: workspace)
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("coffer: error: cancelled"))
        #expect(!result.err.contains("Exported"))
        #expect(!workspace.exists("out.jsonl"))
        #expect(try leftovers(in: workspace).isEmpty)
    }

    @Test func ctrlCAfterTheExportIsInPlaceSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(100))
        let result = try interruptAtPause(
            ["export-json", "--output", workspace.path("out.jsonl")] + workspace.rawKeyArguments,
            in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): the export is complete"))
        #expect(!result.err.contains(Self.cancelling))
        #expect(result.err.contains("Exported 100 row(s)"))
        let lines = try String(contentsOfFile: workspace.path("out.jsonl"), encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 100)
    }

    // MARK: import-json

    @Test func ctrlCAfterTheLastBatchIsImportedSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        let input = workspace.directory.file("rows.jsonl")
        try Data(Workspace.rows(2_500).map { $0 + "\n" }.joined().utf8).write(to: input)
        let result = try interruptAtPause(
            ["import-json", "--input", input.path, "--batch-size", "1000"] + workspace.rawKeyArguments,
            in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): all 2500 row(s) are imported"))
        #expect(!result.err.contains(Self.cancelling))
        #expect(result.out.contains("Imported 2500 row(s)"))
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).out == "items\t2500\n")
    }

    // MARK: verify

    @Test func ctrlCAtTheLastRowOfVerifyCancelsIt() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(50))
        let result = try interruptAtPause(
            ["verify", "--debug-pause-after", "50"] + workspace.rawKeyArguments, in: workspace)
        #expect(result.status == 130, "\(result.err)")
        #expect(result.err.contains("coffer: error: cancelled"))
        #expect(!result.out.contains("Verified"), "no report for a cancelled check")
    }

    @Test func ctrlCAfterVerifyCheckedEveryRowSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(50))
        let result = try interruptAtPause(["verify"] + workspace.rawKeyArguments, in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): every row is checked"))
        #expect(!result.err.contains(Self.cancelling))
        #expect(result.out.contains("Verified 50 row(s): no problems"))
    }

    // MARK: rotate-key

    @Test func ctrlCAfterTheRotationPassedItsLastSafeMomentSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(40))
        let result = try interruptAtPause(
            ["rotate-key", "--new-raw-key-file", workspace.path("new.key")] + workspace.rawKeyArguments,
            in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): the re-encrypted copy replaces the database"))
        #expect(!result.err.contains(Self.cancelling))
        #expect(result.out.contains("Rotated the key"))
        let listed = try workspace.coffer(["ls", "--database", workspace.database, "--raw-key-file", "new.key"])
        #expect(listed.out == "items\t40\n", "\(listed.err)")
        #expect(try leftovers(in: workspace).isEmpty)
    }

    // MARK: vacuum

    @Test func ctrlCAfterTheVacuumSaysItFinished() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(40))
        let result = try interruptAtPause(["vacuum"] + workspace.rawKeyArguments, in: workspace, pauseAt: "commit")
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("\(Self.tooLate): the database is vacuumed"))
        #expect(result.out.contains("Vacuumed"))
        #expect(try workspace.coffer(["ls"] + workspace.rawKeyArguments).out == "items\t40\n")
    }
}
