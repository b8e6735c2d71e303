import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension RelationshipSuites {
    /// File destinations: deleted after the commit and never after a rollback, shared files kept
    /// until their last source goes, and deletions a crash interrupted finished at the next
    /// registration.
    @Suite struct RelationshipFileTests {
        typealias S = RelationshipSuites

        /// A new file in `dir`.
        private func makeFile(_ dir: TemporaryDirectory, _ name: String) throws -> URL {
            let url = dir.file(name)
            try Data("secret \(name)".utf8).write(to: url)
            return url
        }

        private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

        @Test func aFileIsDeletedAfterTheCommitAndKeptAfterARollback() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let file = try makeFile(dir, "attachment")
            try S.save(f.one, ["note": TestNode(files: [file.path])])
            try f.two.read { tx throws in
                let edges = try S.edges(tx)
                #expect(try edges.edgeCount(destination: .file(file)) == 1)
                #expect(try edges.edgeCount(name: "file", source: S.node("note"), destination: .file(file)) == 1)
                #expect(try edges.edges(name: "file").first?.destination == .file(file.standardizedFileURL))
            }

            try f.one.readWrite { tx in
                try tx.removeObject(forKey: "note", inCollection: "nodes")
                tx.rollback()
            }
            f.relationship.fileDeleter.drainNow()
            #expect(exists(file))
            #expect(try S.keys(f.two) == ["note"])

            try f.two.readWrite { tx in
                try tx.removeObject(forKey: "note", inCollection: "nodes")
                // The file outlives the transaction's body: it goes only once the commit is durable.
                #expect(exists(file))
            }
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(file))
            // The next write clears the record of the finished deletion.
            try f.one.readWrite { tx in try tx.setObject(TestNode(), forKey: "other", inCollection: "nodes") }
            try f.one.read { tx throws in #expect(try S.edges(tx).recordedFileDeletionCount() == 0) }
        }

        /// The deletion runs on the deleter's queue: a commit returns while that queue is held up.
        @Test func aCommitDoesNotWaitForItsFileDeletions() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let file = try makeFile(dir, "attachment")
            try S.save(f.one, ["note": TestNode(files: [file.path])])
            let release = DispatchSemaphore(value: 0)
            f.relationship.fileDeleter.queue.async { release.wait() }
            try f.one.readWrite { tx in try tx.removeObject(forKey: "note", inCollection: "nodes") }
            #expect(exists(file))
            #expect(try S.keys(f.two).isEmpty)
            release.signal()
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(file))
        }

        @Test func aFileDroppedFromTheNodesListIsDeleted() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let kept = try makeFile(dir, "kept")
            let dropped = try makeFile(dir, "dropped")
            try S.save(f.one, ["note": TestNode(files: [kept.path, dropped.path])])
            try S.save(f.two, ["note": TestNode(files: [kept.path])])
            f.relationship.fileDeleter.drainNow()
            #expect(exists(kept))
            #expect(!exists(dropped))
        }

        @Test func aSharedFileGoesWithItsLastSource() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let shared = try makeFile(dir, "shared")
            let all = RelationshipEdge.Rules.deleteDestinationIfAllSourcesDeleted.rawValue
            try f.one.readWrite { tx in
                try tx.setObject(TestNode(files: [shared.path], fileRules: all), forKey: "a", inCollection: "nodes")
                try tx.setObject("b", forKey: "b", inCollection: "plain")
                try S.edges(tx).addEdge(
                    RelationshipEdge(
                        name: "file", source: CollectionKey(collection: "plain", key: "b"), destination: .file(shared),
                        rules: .deleteDestinationIfAllSourcesDeleted))
                #expect(try S.edges(tx).edgeCount(name: "file", destination: .file(shared)) == 2)
            }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "nodes") }
            f.relationship.fileDeleter.drainNow()
            #expect(exists(shared))
            try f.one.readWrite { tx in try tx.removeObject(forKey: "b", inCollection: "plain") }
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(shared))
        }

        @Test func aSharedFileUnderTheOneToOneRuleAlsoWaitsForItsLastSource() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let shared = try makeFile(dir, "shared")
            try S.save(f.one, ["a": TestNode(files: [shared.path]), "b": TestNode(files: [shared.path])])
            try f.two.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "nodes") }
            f.relationship.fileDeleter.drainNow()
            #expect(exists(shared))
            try f.two.readWrite { tx in try tx.removeObject(forKey: "b", inCollection: "nodes") }
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(shared))
        }

        @Test func removingEveryRowDeletesTheFilesTheirRulesCover() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let owned = try makeFile(dir, "owned")
            let loose = try makeFile(dir, "loose")
            try S.save(f.one, ["a": TestNode(files: [owned.path]), "b": TestNode(files: [loose.path], fileRules: 0)])
            try f.two.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(owned))
            #expect(exists(loose))
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func aDeletionACrashInterruptedFinishesAtTheNextRegistration() throws {
            let dir = TemporaryDirectory()
            let files = TemporaryDirectory()
            let url = dir.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            let file = try makeFile(files, "attachment")
            do {
                let relationship = Relationship()
                let database = try Database(url: url, options: options)
                database.registerCodable(TestNode.self, forCollection: "nodes")
                try database.register(relationship, withName: S.name)
                let connection = try database.newConnection()
                try S.save(connection, ["note": TestNode(files: [file.path])])
                // The process "dies" between the commit and the deletion.
                relationship.fileDeleter.skipsDeletion.store(true, ordering: .relaxed)
                try connection.readWrite { tx in try tx.removeObject(forKey: "note", inCollection: "nodes") }
                relationship.fileDeleter.drainNow()
                #expect(exists(file))
                try connection.read { tx throws in #expect(try S.edges(tx).recordedFileDeletionCount() == 1) }
                try database.close()
            }
            let database = try TestSupport.open(url, options: options)
            database.registerCodable(TestNode.self, forCollection: "nodes")
            try database.register(Relationship(), withName: S.name)
            #expect(!exists(file))
            try database.newConnection().read { tx throws in
                #expect(try S.edges(tx).recordedFileDeletionCount() == 0)
            }
        }

        /// A file attached again after an early flush recorded its deletion is kept.
        @Test func aFileAttachedAgainInTheTransactionIsKept() throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let file = try makeFile(dir, "attachment")
            try S.save(f.one, ["a": TestNode(files: [file.path])])
            try f.one.readWrite { tx in
                try tx.removeObject(forKey: "a", inCollection: "nodes")
                try S.edges(tx).flush()
                #expect(try S.edges(tx).recordedFileDeletionCount() == 1)
                try tx.setObject(TestNode(files: [file.path]), forKey: "b", inCollection: "nodes")
            }
            f.relationship.fileDeleter.drainNow()
            #expect(exists(file))
            try f.two.read { tx throws in #expect(try S.edges(tx).recordedFileDeletionCount() == 0) }
        }

        @Test func waitingForDeletionsAsynchronously() async throws {
            let f = try S.fixture()
            let dir = TemporaryDirectory()
            let file = try makeFile(dir, "attachment")
            try await f.one.readWrite { tx in
                try tx.setObject("note", forKey: "note", inCollection: "plain")
                try S.edges(tx).addEdge(
                    RelationshipEdge(
                        name: "file", source: CollectionKey(collection: "plain", key: "note"), destination: .file(file),
                        rules: .deleteDestinationIfSourceDeleted))
            }
            try await f.one.readWrite { tx in try tx.removeObject(forKey: "note", inCollection: "plain") }
            await f.relationship.waitForFileDeletions()
            #expect(!exists(file))
        }

        @Test func aCustomSerializerStoresTheFiles() throws {
            let reversed = Relationship.FileSerializer(
                encode: { Data($0.path.utf8.reversed()) },
                decode: { URL(fileURLWithPath: String(decoding: $0.reversed(), as: UTF8.self)) })
            let f = try S.fixture(Relationship(fileSerializer: reversed))
            let dir = TemporaryDirectory()
            let file = try makeFile(dir, "attachment")
            try S.save(f.one, ["note": TestNode(files: [file.path])])
            try f.two.read { tx throws in #expect(try S.edges(tx).edgeCount(destination: .file(file)) == 1) }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "note", inCollection: "nodes") }
            f.relationship.fileDeleter.drainNow()
            #expect(!exists(file))
        }
    }
}
