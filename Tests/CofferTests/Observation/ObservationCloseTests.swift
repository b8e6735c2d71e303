import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Sequences that wait for commits end, without an error, when the database closes: no commit
/// can come any more, and a consumer would otherwise wait for ever.
@Suite(.timeLimit(.minutes(1))) struct ObservationCloseTests {
    @Test func aRunningObservationEndsWhenTheDatabaseCloses() async throws {
        let test = try TestDatabase()
        let database = test.database
        try await TestSupport.withTimeout { () async throws in
            var values = database.observeKeys(inCollection: "c").makeAsyncIterator()
            #expect(try await values.next() == [])
            try await database.close()
            #expect(try await values.next() == nil)
        }
    }

    @Test func preferenceUpdatesEndWhenTheDatabaseCloses() async throws {
        let test = try TestDatabase()
        let database = test.database
        let prefs = try Preferences(database: database, suite: "s")
        try await TestSupport.withTimeout { () async throws in
            var values = prefs.updates(for: .closingVolume).makeAsyncIterator()
            #expect(await values.next() == 5)
            try await database.close()
            #expect(await values.next() == nil)
        }
    }
}

extension Preferences.Keys {
    fileprivate static let closingVolume = Preferences.Key<Int>("volume", default: 5)
}
