import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Observing SecondaryIndex and FullTextSearch queries: re-run only after commits in the
/// collections the extension covers.
@Suite(.timeLimit(.minutes(1))) struct ExtensionObservationTests {
    private func setUp() throws -> (TestDatabase, Connection) {
        let test = try TestDatabase()
        Extensions.registerCodecs(test.database)
        try test.database.register(Extensions.employeeIndex(), withName: "staff")
        try test.database.register(Extensions.articleSearch(), withName: "search")
        return (test, try test.connection())
    }

    @Test func secondaryIndexQueriesFollowCommitsInCoveredCollections() async throws {
        let (test, writer) = try setUp()
        try await writer.readWrite { tx in
            try tx.setObject(Extensions.employee("Ada", "eng", 150_000), forKey: "ada", inCollection: "employees")
        }
        let query = try DatabaseQuery(format: "WHERE department = ? ORDER BY name", "eng")
        let keys = test.database.observeKeys(matching: query, inSecondaryIndex: "staff")
        let reads = Locked(0)
        let counted = test.database.observe(.extension("staff")) { tx in
            reads.withLock { $0 += 1 }
            return try tx.secondaryIndex("staff")?.count(matching: query) ?? -1
        }
        try await TestSupport.withTimeout {
            var values = keys.makeAsyncIterator()
            var counts = counted.makeAsyncIterator()
            #expect(try await values.next()?.map(\.key) == ["ada"])
            #expect(try await counts.next() == 1)
            // Contractors are not indexed: no re-run.
            try await writer.readWrite { tx in
                try tx.setObject(Extensions.employee("Ed", "eng", 1), forKey: "ed", inCollection: "contractors")
            }
            try await writer.readWrite { tx in
                try tx.setObject(Extensions.employee("Bob", "eng", 90_000), forKey: "bob", inCollection: "employees")
            }
            #expect(try await values.next()?.map(\.key) == ["ada", "bob"])
            #expect(try await counts.next() == 2)
            #expect(reads.withLock { $0 } == 2)
        }
    }

    @Test func fullTextSearchQueriesFollowCommits() async throws {
        let (test, writer) = try setUp()
        let matches = test.database.observeKeys(matching: "swift", inFullTextSearch: "search")
        try await TestSupport.withTimeout {
            var values = matches.makeAsyncIterator()
            #expect(try await values.next() == [])
            try await writer.readWrite { tx in
                try tx.setObject(Article(title: "Swift", body: "on Linux"), forKey: "a1", inCollection: "articles")
                try tx.setObject(Article(title: "Rust", body: "elsewhere"), forKey: "a2", inCollection: "articles")
            }
            #expect(try await values.next() == [CollectionKey(collection: "articles", key: "a1")])
            try await writer.readWrite { tx in try tx.removeObject(forKey: "a1", inCollection: "articles") }
            #expect(try await values.next() == [])
        }
    }

    @Test func anUnregisteredExtensionEndsTheSequenceWithAnError() async throws {
        let (test, _) = try setUp()
        let observation = test.database.observeKeys(matching: .matchingAll, inSecondaryIndex: "missing")
        let code = try await TestSupport.withTimeout { () -> DatabaseError.Code? in
            do {
                for try await _ in observation {}
                return nil
            } catch let error as DatabaseError {
                return error.code
            }
        }
        #expect(code == .extensionFailure)
    }

    @Test func regionsMatchTheChangesetsThatTouchThem() throws {
        let (test, writer) = try setUp()
        let changesets = Locked<[Changeset]>([])
        let recorder = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: test.database, queue: nil
        ) { note in
            // The registrations' own changesets may still be on their way.
            if let changeset = note.userInfo?[Database.changesetKey] as? Changeset,
                changeset.registeredExtensions.isEmpty
            {
                changesets.withLock { $0.append(changeset) }
            }
        }
        defer { NotificationCenter.default.removeObserver(recorder) }
        try writer.readWrite { tx in
            try tx.setObject(Extensions.employee("Ed", "eng", 1), forKey: "ed", inCollection: "contractors")
        }
        #expect(TestSupport.wait { changesets.withLock { $0.count } == 1 })
        let changeset = try #require(changesets.withLock { $0.first })
        let db = test.database
        #expect(DatabaseRegion.row(forKey: "ed", inCollection: "contractors").isModified(by: changeset, in: db))
        #expect(!DatabaseRegion.row(forKey: "ed", inCollection: "employees").isModified(by: changeset, in: db))
        #expect(DatabaseRegion.collection("contractors").isModified(by: changeset, in: db))
        #expect(!DatabaseRegion.collection("employees").isModified(by: changeset, in: db))
        #expect(!DatabaseRegion.extension("staff").isModified(by: changeset, in: db))
        #expect(!DatabaseRegion.extension("search").isModified(by: changeset, in: db))
        // An extension that does not say what it covers (here: none registered) counts every change.
        #expect(DatabaseRegion.extension("unknown").isModified(by: changeset, in: db))
        #expect(DatabaseRegion.everything.isModified(by: changeset, in: db))
        #expect(!DatabaseRegion().isModified(by: changeset, in: db))
        #expect(
            DatabaseRegion.collection("employees").union(.collection("contractors")).isModified(by: changeset, in: db))
    }
}
