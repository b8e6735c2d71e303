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
}
