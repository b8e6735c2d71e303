import Foundation
import Testing

@testable import Coffer

/// Reading and writing key files on disk.
///
/// Each test works in its own temporary directory, removed afterwards; KDF parameters are the
/// small test ones.
@Suite("KeyFile I/O")
struct KeyFileIOTests {
    /// Runs `body` with a fresh empty directory that is deleted afterwards.
    func withTemporaryDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-keyfile-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue)
    }

    func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func createWritesAReadableFileWithMode0600AndNoLeftovers() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("db.key")
            let (created, dataKey) = try KeyFile.create(
                at: url, passphrase: TestPassphrase.user, parameters: .fastScrypt)

            #expect(try mode(of: url) == 0o600)
            #expect(try contents(of: directory) == ["db.key"])
            let read = try KeyFile.read(from: url)
            #expect(read == created)
            #expect(try read.unwrap(passphrase: TestPassphrase.user) == dataKey)
        }
    }

    @Test func createRefusesToReplaceAnExistingFile() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("db.key")
            let (original, dataKey) = try KeyFile.create(
                at: url, passphrase: TestPassphrase.user, parameters: .fastScrypt)
            let error = expectKeyFileError(.fileExists) {
                try KeyFile.create(at: url, passphrase: TestPassphrase.other, parameters: .fastScrypt)
            }
            #expect(error?.path == url.path)
            #expect(try KeyFile.read(from: url) == original)
            #expect(try KeyFile.read(from: url).unwrap(passphrase: TestPassphrase.user) == dataKey)
            #expect(try contents(of: directory) == ["db.key"])
        }
    }

    @Test func writeReplacesAtomicallyWithMode0600() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("db.key")
            try Data("old contents".utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)

            let dataKey = DataKey.random()
            let keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastPBKDF2)
            try keyFile.write(to: url)
            #expect(try mode(of: url) == 0o600)
            #expect(try contents(of: directory) == ["db.key"])

            // The passphrase-change workflow: read, rewrap, write back.
            let changed = try KeyFile.read(from: url)
                .changingPassphrase(from: TestPassphrase.user, to: TestPassphrase.other)
            try changed.write(to: url)
            #expect(try KeyFile.read(from: url).unwrap(passphrase: TestPassphrase.other) == dataKey)
            #expect(try contents(of: directory) == ["db.key"])
        }
    }

    @Test func failuresNameThePathAndLeaveNothingBehind() throws {
        try withTemporaryDirectory { directory in
            let keyFile = try KeyFile(wrapping: .random(), passphrase: TestPassphrase.user, parameters: .fastPBKDF2)
            let missingDirectory = directory.appendingPathComponent("missing/db.key")
            let writeError = expectKeyFileError(.io) { try keyFile.write(to: missingDirectory) }
            #expect(writeError?.description.contains(directory.path) == true)

            // Renaming over a directory fails after the temporary file was written: it must go.
            let occupied = directory.appendingPathComponent("occupied")
            try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: false)
            try FileManager.default.createDirectory(
                at: occupied.appendingPathComponent("child"), withIntermediateDirectories: false)
            expectKeyFileError(.io) { try keyFile.write(to: occupied) }
            #expect(try contents(of: directory) == ["occupied"])

            let missingFile = directory.appendingPathComponent("nothing.key")
            let readError = expectKeyFileError(.io) { try KeyFile.read(from: missingFile) }
            #expect(readError?.path == missingFile.path)
            #expect(readError?.description.contains("nothing.key") == true)
        }
    }

    @Test func damagedFilesOnDiskAreDamagedWithTheirPath() throws {
        try withTemporaryDirectory { directory in
            let empty = directory.appendingPathComponent("empty.key")
            try Data().write(to: empty)
            let emptyError = expectKeyFileError(.damaged) { try KeyFile.read(from: empty) }
            #expect(emptyError?.path == empty.path)

            let truncated = directory.appendingPathComponent("truncated.key")
            try Data(KeyFileFixture.version1.utf8.prefix(100)).write(to: truncated)
            expectKeyFileError(.damaged) { try KeyFile.read(from: truncated) }

            let huge = directory.appendingPathComponent("huge.key")
            try Data(count: KeyFile.maximumFileSize * 4).write(to: huge)
            expectKeyFileError(.damaged) { try KeyFile.read(from: huge) }
        }
    }
}
