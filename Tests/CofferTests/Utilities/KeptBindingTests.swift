import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// What a statement remembers of its bindings, and when it must forget it.
///
/// `Statement.bindKept`: a kept text stays bound across steps, is replaced by other text, and is
/// forgotten when the parameter is bound any other way. The same for a NULL the statement knows
/// a parameter holds (binding NULL there again is skipped), and for a parameter a lent value
/// left dangling (bound to NULL before the next step unless bound again).
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

    /// A lent value's parameter is left bound to memory that goes away; the statement must read
    /// NULL there at its next step, unless the parameter was bound again in between.
    @Test func aLentParameterIsNullAtTheNextStepUnlessBoundAgain() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("lent.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let statement = try probe(connection)
        func bothColumns() throws -> [String?] {
            defer { statement.reset() }
            #expect(try statement.step())
            return [0, 1].map { statement.isNull($0) ? nil : statement.text($0) }
        }
        // Heap-allocated values, released as soon as their lending ends.
        func lend(_ prefix: String, at index: Int32, _ body: () throws -> Void = {}) throws {
            try statement.withLent(String(repeating: prefix, count: 40), at: index, body)
        }
        try lend("a", at: 1) { try lend("b", at: 2) }
        #expect(try bothColumns() == [nil, nil])

        try lend("a", at: 1)
        try statement.bind("bound", at: 1)
        try lend("b", at: 2)
        #expect(try bothColumns() == ["bound", nil])

        try lend("a", at: 1)
        try statement.bindKept("kept", at: 2)
        #expect(try bothColumns() == [nil, "kept"])

        try lend("a", at: 1)
        try statement.bindNull(at: 1)
        try statement.bind(Data([0x61]), at: 2)
        #expect(try bothColumns() == [nil, "a"])

        // A body that leaves the statement on a row: the lending still ends with NULL.
        try lend("c", at: 1) { #expect((try? statement.step()) == true) }
        #expect(try bothColumns() == [nil, "a"])

        // The same value lent on every step, as a row path does, reads back each time.
        for round in 0..<3 {
            try statement.withLent("row \(round)", at: 1) { () throws in
                #expect(try bothColumns() == ["row \(round)", "a"])
            }
        }
        #expect(try bothColumns() == [nil, "a"])

        // Parameters past the 64th are unbound at once.
        let wide = try connection.cachedStatement("SELECT ?70")
        try wide.withLent(String(repeating: "w", count: 40), at: 70) { () throws in
            #expect(try firstColumn(wide) != nil)
        }
        #expect(try firstColumn(wide) == nil)
    }
}
