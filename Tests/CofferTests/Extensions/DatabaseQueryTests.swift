import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// `DatabaseQuery` on its own: checking formats, expanding lists, never holding values in SQL.
    @Suite struct DatabaseQueryTests {
        @Test func valuesAreBoundNeverWritten() throws {
            let query = try DatabaseQuery(format: "WHERE department = ? AND salary >= ?", arguments: ["eng", 100_000])
            #expect(query.sql == "WHERE department = ? AND salary >= ?")
            #expect(query.bindings == [.text("eng"), .integer(100_000)])
            #expect(!query.description.contains("eng"))
            #expect(!query.description.contains("100000"))
            let variadic = try DatabaseQuery(format: "WHERE department = ? AND salary >= ?", "eng", 100_000)
            #expect(variadic.sql == query.sql && variadic.bindings == query.bindings)
        }

        @Test func argumentCountMustMatch() {
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ? AND b = ?", "x") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ?", "x", "y") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = 1", "x") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = 1") } == nil)
        }

        @Test func semicolonsAreRejectedEverywhere() {
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ?; DROP TABLE database2", 1) } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ';'") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery.aggregate("SUM(a); DELETE FROM yap2", format: "") } == .invalidQuery)
        }

        @Test func placeholdersInsideQuotesAndCommentsAreText() throws {
            let query = try DatabaseQuery(
                format: "WHERE name = '?' AND \"?col\" = ? -- what?\n AND b /* ? */ = ?", "x", 2)
            #expect(query.bindings == [.text("x"), .integer(2)])
            let escaped = try DatabaseQuery(format: "WHERE name = 'it''s ?' AND a = ?", 1)
            #expect(escaped.bindings == [.integer(1)])
        }

        @Test func malformedFormatsAreRejected() {
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ?1", 1) } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = :name", 1) } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = @name") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = 'open") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = 1 /* open") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery.aggregate("  ", format: "") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery.aggregate("SUM(?)", format: "") } == .invalidQuery)
        }

        @Test func listsExpandTheirPlaceholder() throws {
            let query = try DatabaseQuery(
                format: "WHERE title = ? AND department IN (?) AND level > ?", "manager", ["eng", "ops", "qa"], 2)
            #expect(query.sql == "WHERE title = ? AND department IN (?, ?, ?) AND level > ?")
            #expect(query.bindings == [.text("manager"), .text("eng"), .text("ops"), .text("qa"), .integer(2)])
            let one = try DatabaseQuery(format: "WHERE a IN (?)", [7])
            #expect(one.sql == "WHERE a IN (?)")
            #expect(one.bindings == [.integer(7)])
        }

        @Test func anEmptyListBecomesAnEmptySubquery() throws {
            let empty: [String] = []
            let query = try DatabaseQuery(format: "WHERE a IN ( ? ) AND b = ?", empty, 1)
            #expect(query.sql == "WHERE a IN (SELECT NULL WHERE 0) AND b = ?")
            #expect(query.bindings == [.integer(1)])
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ?", empty) } == .invalidQuery)
        }

        @Test func valueConversions() throws {
            let date = Date(timeIntervalSinceReferenceDate: 12.5)
            let missing: Int? = nil
            let query = try DatabaseQuery(
                format: "WHERE a = ? AND b = ? AND c = ? AND d = ? AND e = ? AND f = ?",
                date, true, Data([1, 2]), missing, 2.5, Int32(3))
            #expect(query.bindings == [.real(12.5), .integer(1), .blob(Data([1, 2])), .null, .real(2.5), .integer(3)])
            #expect(DatabaseValue.real(12.5).dateValue == date)
            #expect(DatabaseValue.real(3.9).int64Value == 3)
            #expect(DatabaseValue.text("x").int64Value == nil)
            #expect(DatabaseValue.integer(4).doubleValue == 4)
            #expect(DatabaseValue.text("secret").description == "TEXT")
        }

        @Test func aggregateQueriesKeepTheirFunction() throws {
            let query = try DatabaseQuery.aggregate("SUM(salary)", format: "WHERE department = ?", "eng")
            #expect(query.aggregateFunction == "SUM(salary)")
            #expect(query.bindings == [.text("eng")])
            #expect(DatabaseQuery.matchingAll.sql.isEmpty)
        }
    }
}
