import CofferTestSupport
import Foundation
import Testing

/// The programs of README.md and GettingStarted.md (Examples/) run to the end, print what the
/// documents say, and close their database before they exit.
@Suite("The documents' programs run")
struct DocumentedProgramTests {
    /// Runs the example `name` with its temporary directory (where it puts its database) in `directory`.
    private func run(_ name: String, in directory: TemporaryDirectory) throws -> ProgramResult {
        let result = try Program.run(
            try Program.built(name), in: directory.url,
            environment: [
                "TMPDIR": directory.url.path, "HOME": directory.url.path, "XDG_DATA_HOME": directory.url.path,
            ])
        #expect(!result.timedOut, "\(name) did not finish")
        return result
    }

    /// The database files the program left: one database and no `-wal`/`-shm`, which a database
    /// still open at exit (or still closing) leaves behind.
    private func expectOneClosedDatabase(in directory: TemporaryDirectory) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            .filter { !$0.hasPrefix(".run-") }
        #expect(names.count == 1 && names.allSatisfy { $0.hasPrefix("notes-") && $0.hasSuffix(".db") }, "\(names)")
    }

    @Test func theReadmeExampleRuns() throws {
        let directory = TemporaryDirectory("coffer-readme-example")
        let result = try run("readme-example", in: directory)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "on the fridge\n")
        try expectOneClosedDatabase(in: directory)
    }

    @Test func theGettingStartedProgramRuns() throws {
        let directory = TemporaryDirectory("coffer-getting-started-example")
        let result = try run("getting-started-example", in: directory)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "[\"Wi-Fi\", \"Bins\"]\nnotes: 2\nclosed: true\n")
        try expectOneClosedDatabase(in: directory)
    }
}
