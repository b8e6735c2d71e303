import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

/// Constant SQL texts find their cached statements by address, through a small two-way table in
/// front of the dictionary: every text must get its own statement back, however the addresses
/// fall in the table, and a statement still stepping is never handed out twice.
struct ConstantStatementCacheTests {
    static let texts: [StaticString] = [
        "SELECT 0",
        "SELECT 1",
        "SELECT 2",
        "SELECT 3",
        "SELECT 4",
        "SELECT 5",
        "SELECT 6",
        "SELECT 7",
        "SELECT 8",
        "SELECT 9",
        "SELECT 10",
        "SELECT 11",
        "SELECT 12",
        "SELECT 13",
        "SELECT 14",
        "SELECT 15",
        "SELECT 16",
        "SELECT 17",
        "SELECT 18",
        "SELECT 19",
        "SELECT 20",
        "SELECT 21",
        "SELECT 22",
        "SELECT 23",
        "SELECT 24",
        "SELECT 25",
        "SELECT 26",
        "SELECT 27",
        "SELECT 28",
        "SELECT 29",
        "SELECT 30",
        "SELECT 31",
        "SELECT 32",
        "SELECT 33",
        "SELECT 34",
        "SELECT 35",
        "SELECT 36",
        "SELECT 37",
        "SELECT 38",
        "SELECT 39",
        "SELECT 40",
        "SELECT 41",
        "SELECT 42",
        "SELECT 43",
        "SELECT 44",
        "SELECT 45",
        "SELECT 46",
        "SELECT 47",
    ]

    @Test func everyTextGetsItsOwnStatementBackInAnyOrder() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("constants.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let first = try Self.texts.map { try connection.cachedStatement($0) }
        var order = Array(Self.texts.indices)
        for round in 0..<4 {
            if round == 2 { order.reverse() }
            if round == 3 { order = order.filter { $0 % 2 == 0 } + order.filter { $0 % 2 == 1 } }
            for index in order {
                let statement = try connection.cachedStatement(Self.texts[index])
                #expect(statement === first[index], "round \(round), text \(index)")
                #expect(try statement.step())
                #expect(statement.int64(0) == Int64(index))
                statement.reset()
            }
        }
    }

    @Test func aSteppingStatementIsNotHandedOutAgain() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("busy.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        let cached = try connection.cachedStatement(Self.texts[7])
        #expect(try cached.step())
        let other = try connection.cachedStatement(Self.texts[7])
        #expect(other !== cached)
        #expect(try other.step() && other.int64(0) == 7)
        other.reset()
        cached.reset()
        #expect(try connection.cachedStatement(Self.texts[7]) === cached)
    }

    /// The fused calls (`copyColumn(_:of:…)`, `run(_:keeping:…)`) use the table's statements
    /// without owning them: they must find the right one among many texts, step a fresh one when
    /// the cached one is stepping, and keep working once the cache has been cleared (which drops
    /// the table's entries before the statements that owned them go).
    @Test func fusedCallsUseTheRightStatementAndSurviveAClearedCache() throws {
        let dir = TemporaryDirectory()
        let connection = try SQLiteConnection(path: dir.file("fused.sqlite").path)
        defer { withExtendedLifetime(connection) {} }
        try connection.execute("CREATE TABLE t (c TEXT, k TEXT, v BLOB, m BLOB, UNIQUE (c, k))")
        let insert: StaticString = "INSERT OR IGNORE INTO t (c, k, v, m) VALUES (?, ?, ?, ?)"
        let select: StaticString = "SELECT v FROM t WHERE c = ? AND k = ?"
        // Other texts in the table meanwhile, so the two share it with neighbours.
        for text in Self.texts { _ = try connection.cachedStatement(text) }
        for round in 0..<3 {
            if round == 2 { connection.clearStatementCache() }
            for index in 0..<20 {
                let key = "k\(round)-\(index)"
                let value = Data(repeating: UInt8(index), count: index * 13)
                #expect(
                    try connection.run(insert, keeping: "c", at: 1, lending: key, at: 2, value, at: 3, nil, at: 4) == 1)
                #expect(
                    try connection.run(insert, keeping: "c", at: 1, lending: key, at: 2, value, at: 3, nil, at: 4) == 0)
                var read = Data()
                #expect(
                    try connection.copyColumn(0, of: select, into: &read, keeping: "c", at: 1, lending: key, at: 2)
                        == true)
                #expect(read == value)
                #expect(
                    try connection.copyColumn(0, of: select, into: &read, keeping: "d", at: 1, lending: key, at: 2)
                        == nil)
            }
        }
        // While the cached SELECT steps, a fused read steps another statement.
        let stepping = try connection.cachedStatement(select)
        try stepping.bind("c", at: 1)
        try stepping.bind("k0-5", at: 2)
        #expect(try stepping.step())
        var read = Data()
        #expect(
            try connection.copyColumn(0, of: select, into: &read, keeping: "c", at: 1, lending: "k1-3", at: 2) == true)
        #expect(read == Data(repeating: 3, count: 39))
        #expect(stepping.data(0) == Data(repeating: 5, count: 65))
        stepping.reset()
        let nulls = try connection.cachedStatement("SELECT count(*) FROM t WHERE m IS NULL")
        defer { nulls.reset() }
        #expect(try nulls.step() && nulls.int64(0) == 60)
    }
}
