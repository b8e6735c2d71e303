import CofferTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Coffer

@Suite struct PreferencesTests {
    let dir = TemporaryDirectory()
    let key = TestSupport.randomKey()

    func open() throws -> Database {
        try Database(url: dir.file("prefs.db"), options: TestSupport.rawKeyOptions(key))
    }

    struct Profile: Codable, Equatable {
        var name: String
        var scores: [Int]
        var nested: [String: Double]
    }

    @Test func typedValuesRoundTripThroughTheDatabase() throws {
        let url = dir.file("prefs.db")
        let date = Date(timeIntervalSinceReferenceDate: 12_345.678_9)
        let profile = Profile(name: "ada", scores: [1, 2], nested: ["x": 0.5])
        do {
            let prefs = try Preferences(database: try open())
            prefs.set(true, forKey: "bool")
            prefs.set(42, forKey: "int")
            prefs.set(2.5, forKey: "double")
            prefs.set(Float(0.1), forKey: "float")
            prefs.set("text", forKey: "string")
            prefs.set(Data([0, 1, 2]), forKey: "data")
            prefs.set(date, forKey: "date")
            prefs.set(try #require(URL(string: "https://example.com/a?b=c")), forKey: "url")
            prefs.set(URL(fileURLWithPath: "/tmp/file"), forKey: "fileURL")
            try prefs.set(["a", "b"], forKey: "strings")
            try prefs.set(["k": 1, "l": 2], forKey: "dict")
            try prefs.set(profile, forKey: "profile")
            prefs.set(Double.nan, forKey: "nan")
            prefs.set(-Double.infinity, forKey: "negInf")
            try prefs.set(UInt8(7), forKey: "uint8")
            try prefs.set(nil, forKey: "nothing")
            try prefs.flush()
        }
        let prefs = try Preferences(database: try ProxyTestSupport.reopen(url, key: key))
        #expect(prefs.bool(forKey: "bool"))
        #expect(prefs.integer(forKey: "int") == 42)
        #expect(prefs.double(forKey: "double") == 2.5)
        #expect(prefs.float(forKey: "float") == Float(0.1))
        #expect(prefs.value(forKey: "float") == .float(0.1))
        #expect(prefs.string(forKey: "string") == "text")
        #expect(prefs.data(forKey: "data") == Data([0, 1, 2]))
        #expect(prefs.object(forKey: "date") as? Date == date)
        #expect(prefs.url(forKey: "url") == URL(string: "https://example.com/a?b=c"))
        #expect(prefs.url(forKey: "fileURL") == URL(fileURLWithPath: "/tmp/file"))
        #expect(prefs.string(forKey: "fileURL") == "/tmp/file")
        #expect(prefs.stringArray(forKey: "strings") == ["a", "b"])
        #expect(prefs.dictionary(forKey: "dict")?["l"] as? Int == 2)
        #expect(try prefs.object(forKey: "dict", as: [String: Int].self) == ["k": 1, "l": 2])
        #expect(try prefs.object(forKey: "profile", as: Profile.self) == profile)
        #expect(prefs.double(forKey: "nan").isNaN)
        #expect(prefs.double(forKey: "negInf") == -.infinity)
        #expect(prefs.integer(forKey: "uint8") == 7)
        #expect(prefs.object(forKey: "nothing") == nil)
    }

    @Test func changesMadeJustBeforeReleaseAreStillWritten() throws {
        let db = try open()
        let reader = try db.newConnection()
        do {
            let prefs = try Preferences(database: db, suite: "brief")
            prefs.set("last words", forKey: "k")
        }
        let collection = Preferences.collection(forSuite: "brief")
        let written = TestSupport.wait {
            let value = try? reader.read { tx in
                try tx.object(forKey: "k", inCollection: collection, as: PreferenceValue.self)
            }
            return value == .string("last words")
        }
        #expect(written)
    }

    @Test func mismatchedTypedReadsThrowAndLeaveTheValueAlone() throws {
        let prefs = try Preferences(database: try open())
        try prefs.set(Profile(name: "n", scores: [], nested: [:]), forKey: "profile")
        prefs.set("text", forKey: "string")
        #expect(throws: DatabaseError.self) { try prefs.object(forKey: "profile", as: [Int].self) }
        #expect(throws: DatabaseError.self) { try prefs.object(forKey: "string", as: Int.self) }
        #expect(prefs.integer(forKey: "string") == 0)
        #expect(prefs.string(forKey: "string") == "text")
        #expect(try prefs.object(forKey: "profile", as: Profile.self)?.name == "n")
        #expect(try prefs.object(forKey: "missing", as: Int.self) == nil)
    }

    @Test func unsupportedValuesAreATypedError() throws {
        let prefs = try Preferences(database: try open())
        final class NotStorable {}
        let error = #expect(throws: DatabaseError.self) { try prefs.set(NotStorable(), forKey: "x") }
        #expect(error?.code == .typeMismatch)
        #expect(throws: DatabaseError.self) { try prefs.register(defaults: ["x": NotStorable()]) }
        #expect(prefs.object(forKey: "x") == nil)
    }

    @Test func registeredDefaultsAreConsultedButNeverStored() throws {
        let url = dir.file("prefs.db")
        do {
            let prefs = try Preferences(database: try open())
            try prefs.register(defaults: ["volume": 0.8, "name": "guest", "flag": true])
            #expect(prefs.double(forKey: "volume") == 0.8)
            #expect(prefs.string(forKey: "name") == "guest")
            prefs.set("ada", forKey: "name")
            #expect(prefs.string(forKey: "name") == "ada")
            prefs.removeObject(forKey: "name")
            #expect(prefs.string(forKey: "name") == "guest")
            prefs.set(false, forKey: "flag")
            let representation = prefs.dictionaryRepresentation()
            #expect(representation["volume"] as? Double == 0.8)
            #expect(representation["flag"] as? Bool == false)
            try prefs.flush()
        }
        let db = try ProxyTestSupport.reopen(url, key: key)
        let stored = try ProxyTestSupport.connection(db).read { tx in
            try tx.allKeys(inCollection: Preferences.collection(forSuite: "default"))
        }
        #expect(stored == ["flag"])
        let prefs = try Preferences(database: db)
        #expect(prefs.object(forKey: "volume") == nil)
        #expect(prefs.bool(forKey: "flag") == false)
    }

    @Test func suitesAreIndependent() throws {
        let db = try open()
        let app = try Preferences(database: db, suite: "app")
        let plugin = try Preferences(database: db, suite: "plugin")
        app.set("app-value", forKey: "shared")
        plugin.set("plugin-value", forKey: "shared")
        plugin.set(1, forKey: "only-plugin")
        #expect(app.string(forKey: "shared") == "app-value")
        #expect(plugin.string(forKey: "shared") == "plugin-value")
        #expect(app.object(forKey: "only-plugin") == nil)
        app.removeAll()
        #expect(app.dictionaryRepresentation().isEmpty)
        #expect(plugin.dictionaryRepresentation().count == 2)
        try app.flush()
        try plugin.flush()
        let counts = try ProxyTestSupport.connection(db).read { tx in
            (
                try tx.numberOfKeys(inCollection: Preferences.collection(forSuite: "app")),
                try tx.numberOfKeys(inCollection: Preferences.collection(forSuite: "plugin"))
            )
        }
        #expect(counts == (0, 2))
    }

    @Test func localChangesAreAnnouncedByNotificationAndStream() async throws {
        let prefs = try Preferences(database: try open())
        let notified = Locked<[PreferencesChange]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: Preferences.didChangeNotification, object: prefs, queue: nil
        ) { notification in
            let keys = notification.userInfo?[Preferences.changedKeysKey] as? Set<String> ?? []
            let external = notification.userInfo?[Preferences.isExternalKey] as? Bool ?? true
            notified.withLock { $0.append(PreferencesChange(keys: keys, isExternal: external)) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let changes = prefs.changes
        prefs.set(1, forKey: "a")
        prefs.set(2, forKey: "b")
        prefs.removeObject(forKey: "a")
        var streamed = Set<String>()
        for await change in changes {
            #expect(!change.isExternal)
            streamed.formUnion(change.keys)
            if streamed == ["a", "b"] { break }
        }
        #expect(streamed == ["a", "b"])
        #expect(await ProxyTestSupport.eventually { notified.withLock { $0.flatMap(\.keys).count >= 2 } })
        #expect(Set(notified.withLock { $0.flatMap(\.keys) }) == ["a", "b"])
        #expect(notified.withLock { $0.allSatisfy { !$0.isExternal } })
    }

    @Test func anotherInstanceOfTheSuiteSeesCommittedChanges() async throws {
        let db = try open()
        let first = try Preferences(database: db, suite: "shared")
        let second = try Preferences(database: db, suite: "shared")
        let changes = second.changes
        first.set("from-first", forKey: "k")
        try await first.flush()
        var external: PreferencesChange?
        for await change in changes where change.isExternal {
            external = change
            break
        }
        #expect(external?.keys == ["k"])
        #expect(second.string(forKey: "k") == "from-first")
        // A plain connection's removal of the whole collection reaches both instances.
        try await ProxyTestSupport.connection(db).readWrite { tx in
            try tx.removeAllObjects(inCollection: Preferences.collection(forSuite: "shared"))
        }
        #expect(
            await ProxyTestSupport.eventually { second.object(forKey: "k") == nil && first.object(forKey: "k") == nil })
    }

    @Test func aLocalChangeNotYetWrittenWinsOverAnExternalCommit() async throws {
        let db = try open()
        let prefs = try Preferences(database: db, suite: "s")
        let collection = Preferences.collection(forSuite: "s")
        // Keep the proxy's write connection busy so the local batch waits while another writer commits.
        let hold = DispatchSemaphore(value: 0)
        prefs.proxy.writeConnection.asyncRead { _ in _ = hold.wait(timeout: .now() + 30) }
        prefs.set("local", forKey: "k")
        try await ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject(PreferenceValue.string("external"), forKey: "k", inCollection: collection)
            try tx.setObject(PreferenceValue.string("external"), forKey: "marker", inCollection: collection)
        }
        // Once the marker arrived, the external changeset has been applied.
        #expect(await ProxyTestSupport.eventually { prefs.string(forKey: "marker") == "external" })
        #expect(prefs.string(forKey: "k") == "local")
        hold.signal()
        try await prefs.flush()
        #expect(prefs.string(forKey: "k") == "local")
        let stored = try await ProxyTestSupport.connection(db).read { tx in
            try tx.object(forKey: "k", inCollection: collection, as: PreferenceValue.self)
        }
        #expect(stored == .string("local"))
        // A later external commit replaces the committed local value.
        try await ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject(PreferenceValue.int(3), forKey: "k", inCollection: collection)
        }
        #expect(await ProxyTestSupport.eventually { prefs.integer(forKey: "k") == 3 })
    }

    @Test func customChainIsRegisteredForTheSuite() throws {
        let db = try open()
        let calls = Atomic<Int>(0)
        let base = Preferences.codec
        let counting = Serializer(
            name: "counting",
            encode: { object in
                calls.add(1, ordering: .relaxed)
                return try base.encode(object)
            },
            decode: { try base.decode($0) })
        let prefs = try Preferences(database: db, suite: "custom", chain: SerializerChain(codec: counting))
        prefs.set(1, forKey: "k")
        try prefs.flush()
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func failedWritesStayReadableAndAreRetried() throws {
        let db = try open()
        let failing = Atomic<Bool>(true)
        let base = Preferences.codec
        let flaky = Serializer(
            name: "flaky",
            encode: { object in
                if failing.load(ordering: .relaxed) {
                    throw SerializationError(.codecFailed, stage: "flaky", reason: "the test made this write fail")
                }
                return try base.encode(object)
            },
            decode: { try base.decode($0) })
        let prefs = try Preferences(database: db, suite: "flaky", chain: SerializerChain(codec: flaky))
        prefs.set("kept", forKey: "k")
        #expect(throws: DatabaseError.self) { try prefs.flush() }
        #expect(!prefs.synchronize())
        #expect(prefs.string(forKey: "k") == "kept")
        #expect(prefs.pendingChangeCount == 1)
        failing.store(false, ordering: .relaxed)
        #expect(prefs.synchronize())
        let stored = try ProxyTestSupport.connection(db).read { tx in
            try tx.object(
                forKey: "k", inCollection: Preferences.collection(forSuite: "flaky"), as: PreferenceValue.self)
        }
        #expect(stored == .string("kept"))
    }

    @Test func storedValuesThatDoNotDecodeFailTheLoad() throws {
        let db = try open()
        try ProxyTestSupport.connection(db).readWrite { tx in
            try tx.setObject(
                "not a preference", forKey: "broken", inCollection: Preferences.collection(forSuite: "default"))
        }
        let error = #expect(throws: DatabaseError.self) { _ = try Preferences(database: db) }
        #expect(error?.key == "broken")
    }
}

/// Hand-offs run outside the state lock; these check that no change is lost or reordered on the way.
@Suite struct PreferencesHandOffTests {
    let dir = TemporaryDirectory()
    let key = TestSupport.randomKey()

    /// Setters, flushes and the deferred announcement race on the same keys; after a final flush a
    /// fresh instance (on a new database handle) must read each key's last value.
    @Test func concurrentSetsAndFlushesLoseNoLatestValue() throws {
        let url = dir.file("prefs.db")
        let keyCount = 200
        let rounds = 30
        do {
            let db = try Database(url: url, options: TestSupport.rawKeyOptions(key))
            let prefs = try Preferences(database: db)
            let done = Atomic(false)
            let flusher = Thread {
                while !done.load(ordering: .acquiring) { _ = prefs.synchronize() }
            }
            flusher.start()
            for round in 0..<rounds {
                for index in 0..<keyCount {
                    // Every third key is removed in odd rounds, so removals race too.
                    if round % 2 == 1, index % 3 == 0 {
                        prefs.removeObject(forKey: "k\(index)")
                    } else {
                        prefs.set(round * keyCount + index, forKey: "k\(index)")
                    }
                }
            }
            done.store(true, ordering: .releasing)
            try prefs.flush()
            #expect(prefs.pendingChangeCount == 0)
        }
        try TestSupport.waitUntilClosed(url)
        let reopened = try Preferences(database: try Database(url: url, options: TestSupport.rawKeyOptions(key)))
        let last = rounds - 1
        for index in 0..<keyCount {
            let expected: Int? = (last % 2 == 1 && index % 3 == 0) ? nil : last * keyCount + index
            #expect(reopened.object(forKey: "k\(index)") as? Int == expected, "k\(index)")
        }
    }

    /// A key changed while its previous value is being handed over keeps the newer value pending.
    @Test func aKeyChangedDuringAHandOffStaysUnstaged() {
        var state = PreferencesState()
        _ = state.noteLocal(.string("first"), forKey: "k")
        let changes = state.beginHandOff(state.changedKeys[...])
        #expect(changes.count == 1)
        // The set lands after the collection and before the proxy's versions are recorded.
        _ = state.noteLocal(.string("second"), forKey: "k")
        state.finishHandOff(changes, versions: [7])
        #expect(state.entries["k"]?.localVersion == PreferencesEntry.unstaged)
        // Still listed, so the next hand-off takes it.
        #expect(state.beginHandOff(state.changedKeys[...]).count == 1)
    }

    /// Taking the list unlists every key at once; a key set afterwards is listed again, once.
    @Test func takingTheChangedKeysRelistsLaterChanges() {
        var state = PreferencesState()
        for key in ["a", "b", "a"] { _ = state.noteLocal(.int(1), forKey: key) }
        #expect(state.takeChangedKeys() == ["a", "b"])
        #expect(state.changedKeys.isEmpty)
        for key in ["b", "b", "c"] { _ = state.noteLocal(.int(2), forKey: key) }
        #expect(state.changedKeys == ["b", "c"])
    }

    /// A burst larger than one hand-off chunk reaches the database whole.
    @Test func aBurstOfManyChunksIsWrittenWhole() throws {
        let url = dir.file("prefs.db")
        let count = Preferences.handOffChunk * 5 + 3
        do {
            let prefs = try Preferences(database: try Database(url: url, options: TestSupport.rawKeyOptions(key)))
            for index in 0..<count { prefs.set(index, forKey: "k\(index)") }
            try prefs.flush()
            #expect(prefs.pendingChangeCount == 0)
        }
        try TestSupport.waitUntilClosed(url)
        let reopened = try Preferences(database: try Database(url: url, options: TestSupport.rawKeyOptions(key)))
        #expect(reopened.dictionaryRepresentation().count == count)
        #expect(reopened.integer(forKey: "k\(count - 1)") == count - 1)
    }
}
