import CofferTestSupport
import Foundation
import InMemoryLogging
import Logging
import Testing

@testable import Coffer

/// A settings value with no property-list form: stored as JSON.
struct WindowLayout: Codable, Sendable, Equatable {
    var width: Double
    var panes: [String]
}

extension Preferences.Keys {
    static let darkMode = Preferences.Key<Bool>("darkMode", default: false)
    static let launchCount = Preferences.Key<Int>("launchCount", default: 0)
    static let volume = Preferences.Key<Double>("volume", default: 0.8)
    static let ratio = Preferences.Key<Float>("ratio", default: 1)
    static let userName = Preferences.Key<String>("userName", default: "")
    static let token = Preferences.Key<Data>("token", default: Data())
    static let lastSync = Preferences.Key<Date>("lastSync", default: .distantPast)
    static let recent = Preferences.Key<[String]>("recent", default: [])
    static let limits = Preferences.Key<[String: Int]>("limits", default: [:])
    static let layout = Preferences.Key<WindowLayout>("layout", default: WindowLayout(width: 800, panes: ["main"]))
    static let nickname = Preferences.Key<String?>("nickname")
    static let raw = Preferences.Key<PreferenceValue>("launchCount", default: .int(-1))
    static let theme = Preferences.Key<Theme>("theme", default: .system)
    static let level = Preferences.Key<Level>("level", default: .low)
}

/// An enum stored as its raw `String`, as the string API stores a string.
enum Theme: String, Codable, Sendable {
    case system, light, dark
}

/// An enum stored as its raw `Int`.
enum Level: Int, Codable, Sendable {
    case low = 1, high = 2
}

@Suite struct PreferencesTypedKeyTests {
    let dir = TemporaryDirectory()
    let key = TestSupport.randomKey()

    func open(logger: Logger? = nil) throws -> Database {
        var options = TestSupport.rawKeyOptions(key)
        options.logger = logger
        return try Database(url: dir.file("prefs.db"), options: options)
    }

    @Test func everyBasicTypeAndACodableStructRoundTripThroughTheDatabase() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12_345.678_9)
        let layout = WindowLayout(width: 1024.5, panes: ["sidebar", "editor"])
        do {
            let prefs = try Preferences(database: try open())
            #expect(prefs[.darkMode] == false)
            #expect(prefs[.layout] == WindowLayout(width: 800, panes: ["main"]))
            #expect(prefs[.nickname] == nil)
            prefs[.darkMode] = true
            prefs[.launchCount] = 42
            prefs[.volume] = 0.25
            prefs[.ratio] = 0.1
            prefs[.userName] = "ada"
            prefs[.token] = Data([1, 2, 3])
            prefs[.lastSync] = date
            prefs[.recent] = ["a", "b"]
            prefs[.limits] = ["x": 1, "y": 2]
            prefs[.layout] = layout
            prefs[.nickname] = "countess"
            try prefs.flush()
        }
        let prefs = try Preferences(database: try ProxyTestSupport.reopen(dir.file("prefs.db"), key: key))
        #expect(prefs[.darkMode] == true)
        #expect(prefs[.launchCount] == 42)
        #expect(prefs[.volume] == 0.25)
        #expect(prefs[.ratio] == Float(0.1))
        #expect(prefs[.userName] == "ada")
        #expect(prefs[.token] == Data([1, 2, 3]))
        #expect(prefs[.lastSync] == date)
        #expect(prefs[.recent] == ["a", "b"])
        #expect(prefs[.limits] == ["x": 1, "y": 2])
        #expect(prefs[.layout] == layout)
        #expect(prefs[.nickname] == "countess")
        // nil on an optional key removes the value; reset brings back the declared default.
        prefs[.nickname] = nil
        #expect(prefs.value(forKey: "nickname") == nil)
        prefs.reset(.darkMode, .layout)
        #expect(prefs[.darkMode] == false)
        #expect(prefs[.layout] == WindowLayout(width: 800, panes: ["main"]))
    }

    @Test func typedKeysAndTheStringAPIReadEachOthersValues() throws {
        let prefs = try Preferences(database: try open())
        // String API → typed keys.
        prefs.set(true, forKey: "darkMode")
        prefs.set(7, forKey: "launchCount")
        prefs.set("grace", forKey: "userName")
        try prefs.set(["p", "q"], forKey: "recent")
        try prefs.set(WindowLayout(width: 10, panes: []), forKey: "layout")
        #expect(prefs[.darkMode] == true)
        #expect(prefs[.launchCount] == 7)
        #expect(prefs[.userName] == "grace")
        #expect(prefs[.recent] == ["p", "q"])
        #expect(prefs[.layout] == WindowLayout(width: 10, panes: []))
        // Typed keys → string API, stored in the string API's form.
        prefs[.volume] = 0.5
        prefs[.lastSync] = Date(timeIntervalSinceReferenceDate: 99)
        prefs[.limits] = ["z": 3]
        prefs[.layout] = WindowLayout(width: 20, panes: ["a"])
        #expect(prefs.value(forKey: "volume") == .double(0.5))
        #expect(prefs.double(forKey: "volume") == 0.5)
        #expect(prefs.object(forKey: "lastSync") as? Date == Date(timeIntervalSinceReferenceDate: 99))
        #expect(prefs.value(forKey: "limits") == .dictionary(["z": .int(3)]))
        #expect(try prefs.object(forKey: "layout", as: WindowLayout.self) == WindowLayout(width: 20, panes: ["a"]))
        // Exact numeric conversions are allowed; registered defaults show through.
        prefs.set(3.0, forKey: "launchCount")
        #expect(prefs[.launchCount] == 3)
        #expect(prefs[.raw] == .double(3))
        try prefs.register(defaults: ["userName": "guest"])
        prefs.removeObject(forKey: "userName")
        #expect(prefs[.userName] == "guest")
    }

    @Test func rawValueEnumsAreStoredAsTheirRawValue() throws {
        let prefs = try Preferences(database: try open())
        prefs[.theme] = .dark
        prefs[.level] = .high
        #expect(prefs.string(forKey: "theme") == "dark")
        #expect(prefs.integer(forKey: "level") == 2)
        prefs.set("light", forKey: "theme")
        prefs.set(1, forKey: "level")
        #expect(prefs[.theme] == .light)
        #expect(prefs[.level] == .low)
        // A raw value that names no case reads as the default.
        prefs.set("sepia", forKey: "theme")
        #expect(prefs[.theme] == .system)
        // JSON written for an enum (as a Codable value) still reads.
        try prefs.set(Theme.dark, forKey: "theme")
        #expect(prefs[.theme] == .dark)
        try prefs.flush()
        let reopened = try Preferences(database: prefs.database)
        #expect(reopened[.theme] == .dark && reopened[.level] == .low)
    }

    @Test func aValueOfAnotherTypeReadsAsTheDefaultAndIsLoggedOnce() throws {
        let logs = InMemoryLogHandler()
        let prefs = try Preferences(database: try open(logger: Logger(label: "test", factory: { _ in logs })))
        prefs.set("not a bool", forKey: "darkMode")
        prefs.set(2.5, forKey: "launchCount")
        try prefs.set(["just", "strings"], forKey: "layout")
        #expect(prefs[.darkMode] == false)
        #expect(prefs[.darkMode] == false)
        #expect(prefs[.launchCount] == 0)
        #expect(prefs[.layout] == WindowLayout(width: 800, panes: ["main"]))
        // The stored values are left as they were.
        #expect(prefs.string(forKey: "darkMode") == "not a bool")
        #expect(prefs.double(forKey: "launchCount") == 2.5)
        let warnings = logs.entries.filter { $0.message.description.contains("is not a") }
        #expect(warnings.count == 3)
        #expect(warnings.filter { $0.metadata["key"] == "darkMode" }.count == 1)
    }

    @Test func setReportsAValueJSONCannotEncode() throws {
        let prefs = try Preferences(database: try open())
        prefs[.layout] = WindowLayout(width: 1, panes: [])
        #expect(throws: DatabaseError.self) { try prefs.set(WindowLayout(width: .nan, panes: []), for: .layout) }
        // The subscript logs the failure and keeps the stored value.
        prefs[.layout] = WindowLayout(width: .infinity, panes: [])
        #expect(prefs[.layout] == WindowLayout(width: 1, panes: []))
    }

    @Test(.timeLimit(.minutes(1))) func updatesDeliverTheCurrentValueThenEachChange() async throws {
        let db = try open()
        let prefs = try Preferences(database: db, suite: "ui")
        let other = try Preferences(database: db, suite: "ui")
        let writer = try db.newConnection()
        prefs[.volume] = 0.1
        try await TestSupport.withTimeout {
            var updates = prefs.updates(for: .volume).makeAsyncIterator()
            #expect(await updates.next() == 0.1)
            prefs[.volume] = 0.2
            #expect(await updates.next() == 0.2)
            // Another key, and the same value again, deliver nothing; the next change does.
            prefs[.darkMode] = true
            prefs[.volume] = 0.2
            prefs[.volume] = 0.3
            #expect(await updates.next() == 0.3)
            // Committed first, so the other instance's later commit is not overwritten by it.
            try await prefs.flush()
            // A change made through another instance on the same suite, once it commits.
            other[.volume] = 0.9
            try await other.flush()
            #expect(await updates.next() == 0.9)
            // A commit of a plain connection to the suite's collection.
            try await writer.readWrite { tx in
                try tx.setObject(
                    PreferenceValue.double(0.7), forKey: "volume", inCollection: Preferences.collection(forSuite: "ui"))
            }
            #expect(await updates.next() == 0.7)
            // A value of another type reads as the default.
            other.set("loud", forKey: "volume")
            try await other.flush()
            #expect(await updates.next() == 0.8)
        }
    }

    @Test(.timeLimit(.minutes(1))) func updatesEndWhenTheConsumerStops() async throws {
        let prefs = try Preferences(database: try open())
        let task = Task {
            var seen: [Bool] = []
            for await value in prefs.updates(for: .darkMode) {
                seen.append(value)
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(await AsyncPolling.eventually { prefs.state.withLock { $0.updateSinks.sinks.count == 1 } })
        prefs[.darkMode] = true
        #expect(try await TestSupport.withTimeout { await task.value } == [false, true])
        #expect(await AsyncPolling.eventually { prefs.state.withLock { $0.updateSinks.sinks.isEmpty } })

        // Cancelling the consuming task ends the sequence as well.
        let cancelled = Task {
            var count = 0
            for await _ in prefs.updates(for: .darkMode) { count += 1 }
            return count
        }
        #expect(await AsyncPolling.eventually { prefs.state.withLock { $0.updateSinks.sinks.count == 1 } })
        cancelled.cancel()
        #expect(try await TestSupport.withTimeout { await cancelled.value } == 1)
        #expect(await AsyncPolling.eventually { prefs.state.withLock { $0.updateSinks.sinks.isEmpty } })
    }

    @Test(.timeLimit(.minutes(1))) func updatesEndWhenThePreferencesAreReleased() async throws {
        let db = try open()
        try await TestSupport.withTimeout {
            var prefs: Preferences? = try Preferences(database: db)
            var updates = try #require(prefs).updates(for: .userName).makeAsyncIterator()
            #expect(await updates.next() == "")
            prefs = nil
            #expect(await updates.next() == nil)
        }
    }
}
