import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// `Statement.withLent`: values bound in place for one step are stored exactly and never stay
/// bound after the scope (a dangling pointer must not reach a later step).
struct LentBindingTests {
    private func makeTable(_ dir: TemporaryDirectory) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: dir.file("lent.sqlite").path)
        try connection.execute("CREATE TABLE t (a TEXT, b BLOB)")
        return connection
    }

    /// Texts and blobs to lend: small and long (past the small-string size, with an embedded
    /// NUL), empty, non-ASCII, and a NULL blob.
    static let cases: [(String, Data?)] = [
        ("small", Data([1, 2, 3])),
        ("a\0b, with an embedded NUL and more than fifteen bytes", Data(repeating: 7, count: 5000)),
        ("", Data()),
        ("é ∑ 😀", nil),
    ]

    /// Inserts `cases` into `t`, each text and blob lent for its step.
    private func insertLent(_ connection: SQLiteConnection) throws {
        let insert = try connection.cachedStatement("INSERT INTO t (a, b) VALUES (?, ?)")
        for (text, blob) in Self.cases {
            try insert.withLent(text, at: 1) { try insert.withLent(blob, at: 2) { try insert.run() } }
        }
    }

    /// The rows of `t` in insertion order (NULL as nil).
    private func rows(_ connection: SQLiteConnection) throws -> [(String, Data?)] {
        let select = try connection.cachedStatement("SELECT a, b FROM t ORDER BY rowid")
        defer { select.reset() }
        var read: [(String, Data?)] = []
        while try select.step() { read.append((select.text(0), select.data(1))) }
        return read
    }

    /// How many rows of `t` hold NULL in both columns: what stepping an insert again without
    /// binding leaves, when nothing lent stayed bound.
    private func nullRows(_ connection: SQLiteConnection) throws -> Int64 {
        let select = try connection.cachedStatement("SELECT count(*) FROM t WHERE a IS NULL AND b IS NULL")
        defer { select.reset() }
        _ = try select.step()
        return select.int64(0)
    }

    @Test func lentValuesAreStoredExactly() throws {
        let dir = TemporaryDirectory()
        let connection = try makeTable(dir)
        try insertLent(connection)
        let read = try rows(connection)
        #expect(read.map(\.0) == Self.cases.map(\.0))
        #expect(read.map(\.1) == Self.cases.map(\.1))
    }

    @Test func lentValuesAreUnboundAfterTheScope() throws {
        let dir = TemporaryDirectory()
        let connection = try makeTable(dir)
        let insert = try connection.cachedStatement("INSERT INTO t (a, b) VALUES (?, ?)")
        try insert.withLent("kept only for one step", at: 1) {
            try insert.withLent(Data([9, 9]), at: 2) { try insert.run() }
        }
        // A body that leaves the statement stepping still gets its values unbound.
        let probe = try connection.cachedStatement("SELECT ? IS NULL")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try probe.withLent("left behind", at: 1) {
                _ = try probe.step()
                throw Stop()
            }
        }
        #expect(!probe.isBusy)
        #expect(try probe.step())
        #expect(probe.int64(0) == 1)
        probe.reset()
        // Stepping again without binding inserts NULLs, not whatever the old pointers now hold.
        try insert.run()
        #expect(try nullRows(connection) == 1)
    }

    /// `run(lending:at:_:at:)`, the fused row-write lending, stores the same bytes and leaves
    /// nothing bound either, also when the step fails.
    @Test func runLendingStoresExactlyAndUnbinds() throws {
        let dir = TemporaryDirectory()
        let connection = try makeTable(dir)
        try connection.execute("CREATE UNIQUE INDEX t_a ON t(a)")
        let insert = try connection.cachedStatement("INSERT INTO t (a, b) VALUES (?, ?)")
        let cases: [(String, Data)] = [
            ("small", Data([1, 2, 3])),
            ("a\0b, with an embedded NUL and more than fifteen bytes", Data(repeating: 7, count: 5000)),
            ("", Data()),
            ("é ∑ 😀", Data([0])),
        ]
        for (text, blob) in cases { try insert.run(lending: text, at: 1, blob, at: 2) }
        // A failing step (the unique index) throws and still leaves the statement reset.
        #expect(throws: SQLiteError.self) { try insert.run(lending: "small", at: 1, Data([4]), at: 2) }
        #expect(!insert.isBusy)
        let read = try rows(connection)
        #expect(read.map(\.0) == cases.map(\.0))
        #expect(read.map(\.1) == cases.map(\.1))
        // Stepping again without binding inserts NULLs, not whatever the lent pointers now hold.
        try insert.run()
        #expect(try nullRows(connection) == 1)
    }

    /// `run(lending:at:_:at:)` says how many rows it changed, which an upsert reads instead of
    /// failing on a conflict.
    @Test func runLendingCountsTheRowsItChanged() throws {
        let dir = TemporaryDirectory()
        let connection = try makeTable(dir)
        try connection.execute("CREATE UNIQUE INDEX t_a ON t(a)")
        let insert = try connection.cachedStatement("INSERT OR IGNORE INTO t (a, b) VALUES (?, ?)")
        #expect(try insert.run(lending: "k", at: 1, Data([1]), at: 2) == 1)
        #expect(try insert.run(lending: "k", at: 1, Data([2]), at: 2) == 0)
        let update = try connection.cachedStatement("UPDATE t SET b = ?2 WHERE a = ?1")
        #expect(try update.run(lending: "k", at: 1, Data([3]), at: 2) == 1)
        #expect(try update.run(lending: "missing", at: 1, Data([4]), at: 2) == 0)
        let select = try connection.cachedStatement("SELECT b FROM t")
        defer { select.reset() }
        #expect(try select.step())
        #expect(select.data(0) == Data([3]))
    }

    /// `copyColumn(_:into:keeping:at:lending:at:)`, the fused point read, copies the row's bytes
    /// exactly, tells a missing row from a NULL column, keeps the kept text bound and unbinds the
    /// lent one.
    @Test func copyColumnCopiesTheRowAndUnbindsTheLentText() throws {
        let dir = TemporaryDirectory()
        let connection = try makeTable(dir)
        try insertLent(connection)
        let select = try connection.cachedStatement("SELECT b FROM t WHERE a = ?2 AND ?1 = 'kept'")
        var bytes = Data([9, 9, 9, 9])
        for (text, blob) in Self.cases {
            let found = try select.copyColumn(0, into: &bytes, keeping: "kept", at: 1, lending: text, at: 2)
            #expect(found == (blob != nil), "\(text)")
            #expect(bytes == (blob ?? Data()), "\(text)")
            #expect(!select.isBusy)
        }
        #expect(try select.copyColumn(0, into: &bytes, keeping: "kept", at: 1, lending: "missing", at: 2) == nil)
        // Another kept text is bound in its place.
        #expect(try select.copyColumn(0, into: &bytes, keeping: "other", at: 1, lending: "small", at: 2) == nil)
        let probe = try connection.cachedStatement("SELECT ?1, ?2 IS NULL")
        var text = Data()
        #expect(try probe.copyColumn(0, into: &text, keeping: "kept", at: 1, lending: "lent", at: 2) == true)
        #expect(text == Data("kept".utf8))
        // Stepping again without binding: the kept text stays, the lent one reads as NULL.
        defer { probe.reset() }
        #expect(try probe.step())
        #expect(probe.text(0) == "kept")
        #expect(probe.int64(1) == 1)
    }
}
