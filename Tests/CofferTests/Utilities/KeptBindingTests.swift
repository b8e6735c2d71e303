import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// What a statement remembers of its bindings, and when it must forget it.
///
/// `Statement.bindKept`: a kept text stays bound across steps, is replaced by other text, and is
/// forgotten when the parameter is bound any other way. The same for a NULL the statement knows
/// a parameter holds (binding NULL there again is skipped).
struct KeptBindingTests {
    /// A statement selecting its two parameters (the connection must outlive it).
    private func probe(_ connection: SQLiteConnection) throws -> Statement {
        try connection.cachedStatement("SELECT ?, ?")
    }

    private func firstColumn(_ statement: Statement) throws -> String? {
        defer { statement.reset() }
        #expect(try statement.step())
        return statement.isNull(0) ? nil : statement.text(0)
    }

    @Test func keptTextStaysBoundAcrossSteps() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("kept.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let statement = try probe(connection)
        // Longer than a small string, so its bits name heap storage.
        let long = String(repeating: "collection-", count: 4)
        try statement.bindKept(long, at: 1)
        #expect(try firstColumn(statement) == long)
        try statement.bindKept(long, at: 1)
        #expect(try firstColumn(statement) == long)
        try statement.withLent("key", at: 2) { () throws in #expect(try firstColumn(statement) == long) }
    }

    @Test func otherTextReplacesTheKeptText() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("kept.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let statement = try probe(connection)
        for text in ["a", String(repeating: "b", count: 40), "a", "", String(repeating: "b", count: 40) + "c"] {
            try statement.bindKept(text, at: 1)
            #expect(try firstColumn(statement) == text)
        }
        // Equal text in other storage is bound again: still the same value.
        let built = String(repeating: "b", count: 39) + "b"
        try statement.bindKept(built, at: 1)
        #expect(try firstColumn(statement) == built)
    }

    @Test func anyOtherBindingForgetsTheKeptText() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("kept.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let statement = try probe(connection)
        try statement.bindKept("kept", at: 1)
        try statement.bind(Int64(7), at: 1)
        // Binding the kept text again must really bind it, not trust the forgotten memo.
        try statement.bindKept("kept", at: 1)
        #expect(try firstColumn(statement) == "kept")
        try statement.bindNull(at: 1)
        try statement.bindKept("kept", at: 1)
        #expect(try firstColumn(statement) == "kept")
        try statement.withLent("lent", at: 1) { () throws in #expect(try firstColumn(statement) == "lent") }
        // The lent text was unbound after its scope; the kept text was forgotten with it.
        #expect(try firstColumn(statement) == nil)
        try statement.bindKept("kept", at: 1)
        #expect(try firstColumn(statement) == "kept")
    }

    /// Binding NULL where the statement bound NULL last is skipped; every other binding of the
    /// parameter (text, blob, integer, real, kept text, a lent value and its unbinding) must make
    /// the next NULL a real one.
    @Test func aKnownNullIsOnlySkippedWhileItHolds() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("null.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let statement = try probe(connection)
        let bindings: [(String, (Statement) throws -> Void)] = [
            ("text", { try $0.bind("t", at: 1) }),
            ("blob", { try $0.bind(Data([1, 2]), at: 1) }),
            ("integer", { try $0.bind(Int64(3), at: 1) }),
            ("real", { try $0.bind(2.5, at: 1) }),
            ("kept text", { try $0.bindKept("kept", at: 1) }),
        ]
        try statement.bindNull(at: 1)
        #expect(try firstColumn(statement) == nil)
        for (name, bind) in bindings {
            try bind(statement)
            #expect(try statement.step(), "\(name)")
            #expect(!statement.isNull(0), "\(name) was bound")
            statement.reset()
            try statement.bindNull(at: 1)
            #expect(try firstColumn(statement) == nil, "NULL after \(name)")
            try statement.bindNull(at: 1)
            #expect(try firstColumn(statement) == nil, "NULL again after \(name)")
        }
        // A lent value is unbound to NULL after its scope; a lent nil blob binds NULL.
        try statement.withLent(Data([9]), at: 1) { () throws in #expect(try firstColumn(statement) != nil) }
        #expect(try firstColumn(statement) == nil)
        try statement.bind("t", at: 1)
        try statement.withLent(nil as Data?, at: 1) { () throws in #expect(try firstColumn(statement) == nil) }
        // Parameters past the 64th are not tracked: NULL is always bound there.
        let wide = try connection.cachedStatement("SELECT ?70")
        try wide.bind("w", at: 70)
        try wide.bindNull(at: 70)
        #expect(try firstColumn(wide) == nil)
    }
}
