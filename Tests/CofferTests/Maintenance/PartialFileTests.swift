import CofferTestSupport
import Foundation
import Testing
@testable import Coffer

@Suite struct PartialFileTests {
    /// The names of the files in `directory`.
    func names(in directory: TemporaryDirectory) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
    }

    /// Creates empty files with the given names in `directory`.
    func touch(_ names: [String], in directory: TemporaryDirectory) {
        for name in names {
            #expect(FileManager.default.createFile(atPath: directory.file(name).path, contents: Data("x".utf8)))
        }
    }

    @Test func removesStaleCopiesOfTheDestinationOnlyAndKeepsEveryOtherName() throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("backup.db")
        let locked = ".backup.db.coffer-partial-\(UUID().uuidString)"
        let unlocked = ".backup.db.coffer-partial-\(UUID().uuidString)"
        // A killed writer's copy: its lock file is there, but nobody holds the lock.
        let stale = [locked, locked + "-journal", locked + "-wal", locked + "-shm", locked + ".lock"]
        // A copy from before copies were locked: no lock file.
        let legacy = [unlocked, unlocked + "-journal"]
        let foreign = [
            "backup.db",
            ".backup.db.coffer-partial-not-a-uuid",
            ".backup.db.coffer-partial-\(UUID().uuidString).bak",
            ".backup.db.coffer-partial-\(UUID().uuidString.lowercased())",
            ".other.db.coffer-partial-\(UUID().uuidString)",
            "backup.db.coffer-partial-\(UUID().uuidString)",
        ]
        touch(stale + legacy + foreign, in: directory)

        PartialFile.removeStale(besides: destination)

        #expect(try names(in: directory) == Set(foreign))
    }

    @Test func createsAnEmptyOwnerOnlyCopyThatRemoveDeletesWithItsSidecars() throws {
        let directory = TemporaryDirectory()
        let partial = try PartialFile.create(besides: directory.file("backup.db"))
        let name = partial.url.lastPathComponent
        #expect(PartialFile.copyIdentifier(in: name, prefix: ".backup.db.coffer-partial-") != nil)
        #expect(partial.url.deletingLastPathComponent().path == directory.url.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: partial.url.path)
        #expect((attributes[.size] as? NSNumber)?.intValue == 0)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try names(in: directory) == [name, name + ".lock"])

        touch([name + "-journal"], in: directory)
        partial.remove()
        partial.remove()
        #expect(try names(in: directory).isEmpty)
    }

    @Test func keepsACopyThatIsStillBeingWritten() throws {
        let directory = TemporaryDirectory()
        let destination = directory.file("backup.db")
        let live = try PartialFile.create(besides: destination)
        let name = live.url.lastPathComponent
        touch([name + "-journal"], in: directory)

        // The lock is per open file, so a cleaner in the same process sees it held, as another
        // process would; a second writer cleans up first and must leave the live copy alone.
        PartialFile.removeStale(besides: destination)
        let second = try PartialFile.create(besides: destination)

        let secondName = second.url.lastPathComponent
        #expect(secondName != name)
        #expect(
            try names(in: directory) == [name, name + "-journal", name + ".lock", secondName, secondName + ".lock"])
        live.remove()
        second.remove()
        #expect(try names(in: directory).isEmpty)
    }
}
