import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The typing queue: only the latest query runs, abandoned searches roll back or keep what they
/// found, and the async form leaves the results of one query, whole.
extension SearchResultsViewTests {
    /// 300 notes: note i holds the words "w<i % 100>" and "common".
    static func addManyNotes(_ connection: Connection) throws {
        try connection.readWrite { tx throws in
            for index in 0..<300 {
                try tx.setObject("w\(index % 100) common", forKey: "n\(1000 + index)", inCollection: "notes")
            }
        }
    }

    static func expectedKeys(forWord word: Int) -> [String] {
        [word, word + 100, word + 200].map { "n\(1000 + $0)" }
    }

    /// The view holds exactly the matches of its query, each with its snippet, and no other snippet.
    static func expectConsistent(
        _ connection: Connection, _ form: Form, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String? {
        try connection.read { tx throws in
            let view = try view(tx)
            let query = try view.query()
            let expected = try query.map { query in
                try #require(tx.fullTextSearch("fts")).keys(matching: query).map(\.key).sorted()
            }
            #expect(try keys(tx) == (expected ?? []), sourceLocation: sourceLocation)
            if form.snippets {
                #expect(try view.searchStore.infoCount() == (expected ?? []).count, sourceLocation: sourceLocation)
            }
            return query
        }
    }

    @Test(arguments: Form.all)
    func aBurstOfAHundredQueriesLeavesTheLastOnesResults(form: Form) throws {
        let test = try TestDatabase()
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        try Self.addManyNotes(writer)
        let queue = SearchQueue()
        let done = DispatchGroup()
        let failures = Locked<[String]>([])
        for word in 0..<100 {
            queue.enqueue("w\(word)")
            done.enter()
            writer.asyncReadWrite({ tx in
                try Self.view(tx).performSearch(with: queue)
            }) { error in
                if let error { failures.withLock { $0.append("\(error)") } }
                done.leave()
            }
        }
        #expect(TestSupport.wait(done, timeout: .seconds(60)))
        #expect(failures.withLock { $0 } == [])
        #expect(queue.enqueuedQueryCount == 0)
        #expect(try Self.expectConsistent(writer, form) == "w99")
        try Self.expectResults(
            try test.connection(), Self.expectedKeys(forWord: 99), query: "w99", term: "w99", form)
    }

    @Test(arguments: [true, false])
    func anAbandonedSearchRollsBackOrKeepsWhatItFound(rollback: Bool) throws {
        let test = try TestDatabase()
        let form = Form(overParent: false, persistent: true, snippets: true)
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        try Self.addManyNotes(writer)
        try Self.search(writer, "w1")
        let queue = SearchQueue()
        queue.enqueue("common")
        // Abandoned before it begins: nothing of it happens.
        queue.abortSearchInProgress(rollback: rollback)
        let ran = try writer.readWrite { tx throws in
            try tx.setObject("w1 too", forKey: "other", inCollection: "notes")
            return try Self.view(tx).performSearch(with: queue)
        }
        #expect(ran == nil)
        try writer.read { tx throws in
            #expect(try Self.view(tx).query() == "w1")
            #expect(try tx.hasObject(forKey: "other", inCollection: "notes") == !rollback)
        }
        #expect(try Self.expectConsistent(writer, form) == "w1")

        // Abandoned while it runs (the check inside the search sees it): with rollback the previous
        // results stay; without, the rows placed so far commit.
        queue.enqueue("common")
        let ranWhileRunning = try writer.readWrite { tx throws in
            let view = try Self.view(tx)
            let ticket = try #require(queue.takeLatest())
            queue.enqueue("stale")
            _ = queue.takeLatest()
            queue.abortSearchInProgress(rollback: rollback)
            let finished = try view.replaceResults(with: ticket.query) { queue.abortRequest(for: ticket.ticket) != nil }
            if !finished, queue.abortRequest(for: ticket.ticket) == .rollback { tx.rollback() }
            return finished
        }
        #expect(!ranWhileRunning)
        try writer.read { tx throws in
            let view = try Self.view(tx)
            if rollback {
                #expect(try view.query() == "w1")
            } else {
                #expect(try view.query() == "common")
                // Partial: some of the 301 matches, fewer than all.
                let count = try view.numberOfItemsInAllGroups()
                #expect(count > 0 && count < 301)
            }
        }
    }

    @Test(arguments: [true, false])
    func theAsyncFormLeavesOneQuerysResultsWhole(overParent: Bool) async throws {
        let test = try TestDatabase()
        let form = Form(overParent: overParent, persistent: true, snippets: true)
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        try Self.addManyNotes(writer)
        let queue = SearchQueue()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for word in 0..<100 {
                group.addTask { try await writer.search("w\(word)", inView: "results", queue: queue) }
            }
            try await group.waitForAll()
        }
        #expect(queue.enqueuedQueryCount == 0)
        let query = try #require(try Self.expectConsistent(writer, form))
        #expect(query.hasPrefix("w"))
        // The last search given wins: a search after the burst replaces it at once.
        try await writer.search("w7", inView: "results", queue: queue)
        #expect(try Self.expectConsistent(writer, form) == "w7")
        try Self.expectResults(writer, Self.expectedKeys(forWord: 7), query: "w7", term: "w7", form)
    }
}

extension SearchResultsViewTests {
    @Test func aCancelledSearchThrowsAndLeavesThePreviousResults() async throws {
        let test = try TestDatabase()
        let form = Form(overParent: false, persistent: true, snippets: false)
        try Self.register(form, in: test.database)
        let writer = try test.connection()
        try Self.addNotes(writer)
        try Self.search(writer, "hello")
        let queue = SearchQueue()
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            try await writer.search("world", inView: "results", queue: queue)
        }
        task.cancel()
        let result = await task.result
        #expect(throws: DatabaseError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let error as DatabaseError) = result { #expect(error.code == .cancelled) }
        try Self.expectResults(writer, ["n1", "n2", "n6"], query: "hello", term: "hello", form)
        #expect(queue.enqueuedQueryCount == 0)
    }
}
