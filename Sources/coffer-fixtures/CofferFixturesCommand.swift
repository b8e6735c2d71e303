import ArgumentParser
import CofferToolSupport
import Foundation

/// `coffer-fixtures`: writes Coffer's compliance fixtures into a new folder of `Fixtures/`.
@main
struct CofferFixturesCommand: ParsableCommand {
    /// Writes the fixtures, then lets every fixture database finish closing before exiting.
    static func main() { mainWaitingForDatabasesToClose() }

    /// The command's name, summary and help text.
    static let configuration = CommandConfiguration(
        commandName: "coffer-fixtures",
        abstract: "Write the Coffer-made compliance fixtures into new folders of Fixtures/.",
        discussion: """
            Writes coffer/<folder>/ (good files) and damaged/<folder>/ (made from them by byte surgery) and adds
            their entries to Fixtures/manifest.json. Refuses to run when either folder exists or the manifest already
            names one of the files: a committed fixture is never regenerated. Keys and data are fixed, so a rerun into
            a new folder gives the same contents and manifest checks; the files' bytes differ (SQLCipher salts and
            IVs, and AES-GCM nonces, are random). With --credentials it writes only credentials/<folder>/ (a
            CredentialStore collection in the row-key format of revision 99541a4).
            """)

    @Option(help: "The Fixtures directory.")
    var fixtures = "Fixtures"

    @Option(help: "The folder to create inside coffer/ and damaged/ (or credentials/), e.g. v1.")
    var folder = "v1"

    @Option(help: "The Coffer source revision to record (default: `git rev-parse --short HEAD`).")
    var revision: String?

    @Flag(help: "Write only credentials/<folder>/ (the credential-store fixtures) instead of coffer/ and damaged/.")
    var credentials = false

    mutating func run() throws {
        let root = URL(fileURLWithPath: fixtures, isDirectory: true)
        var manifest = try ManifestFile(url: root.appendingPathComponent("manifest.json"))
        let folders = credentials ? ["credentials/\(folder)"] : ["coffer/\(folder)", "damaged/\(folder)"]
        let stage = try FixtureStage(root: root, folders: folders)
        let context = GeneratorContext(stage: stage, folder: folder, cofferRevision: revision ?? Self.gitRevision())
        print("Writing \(folders.joined(separator: " and ")) …")
        if credentials {
            try CredentialFixtures(context: context).make()
        } else {
            try CofferFixtures(context: context).make()
            try DamagedFixtures(context: context).make()
        }
        let entries = try context.finishEntries()
        try manifest.append(entries)
        try stage.commit()
        try manifest.write()
        print("Wrote \(entries.count) files and their manifest entries.")
    }

    /// The short git revision of the working directory, or "unknown".
    static func gitRevision() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "rev-parse", "--short", "HEAD"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let revision = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && !revision.isEmpty ? revision : "unknown"
    }
}
