import CofferSQLite
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// Regression tests for the inputs the `fuzz-database-query` target found.
    ///
    /// Each is a format Coffer accepted although SQLite counts a different number of parameters
    /// in it, so the query failed only when run (RELIABILITY.md, "Fuzzing"); each must now be
    /// refused when the query is made.
    @Suite struct DatabaseQueryFuzzRegressionTests {
        /// SQLite stops reading SQL at a NUL, so placeholders after one were bound to nothing.
        @Test func aNULIsRefused() {
            let format = "WHER\0E a = ? -- ?\n AND b = /* ?1*/ ?"
            #expect(code { _ = try DatabaseQuery(format: format, 1, 2) } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery.aggregate("SUM(a)\0", format: "") } == .invalidQuery)
        }

        /// The query's filter follows the aggregate function, so a `--` comment that runs to the
        /// function's end swallowed it, placeholders and all (`SELECT 7 --… FROM t ?`: no
        /// parameter for SQLite, one bound by Coffer).
        @Test func anAggregateFunctionEndingInALineCommentIsRefused() {
            #expect(code { _ = try DatabaseQuery.aggregate("7--x", format: "?!)", 1) } == .invalidQuery)
            #expect(
                code { _ = try DatabaseQuery.aggregate("COUNT(*) -- all", format: "WHERE a = ?", 1) } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery.aggregate("COUNT(*) -- all\n", format: "WHERE a = ?", 1) } == nil)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ? -- the last line", 1) } == nil)
        }

        /// SQLite reads `#name` as a named parameter, like `:name`, `@name` and `$name`.
        @Test func hashNamedParametersAreRefused() {
            #expect(code { _ = try DatabaseQuery.aggregate("#VG(salary)", format: "") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = #b") } == .invalidQuery)
        }

        /// `$` continues a name, so `$$$$` is one parameter named `$$$`.
        @Test func dollarRunsAreRefused() {
            #expect(code { _ = try DatabaseQuery.aggregate("$$$$", format: "") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a = ?$$b", 1) } == .invalidQuery)
        }

        /// `:`, `@` and `#` never continue an identifier, so right after a keyword they start a
        /// parameter (found by reading SQLite's tokenizer after the fuzzer's `#` and `$` finds).
        @Test func namedParametersAfterKeywordsAreRefused() {
            #expect(code { _ = try DatabaseQuery(format: "WHERE NOT:a") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE a IS@b") } == .invalidQuery)
            #expect(code { _ = try DatabaseQuery(format: "WHERE CASE#c WHEN 1 THEN 1 END") } == .invalidQuery)
        }

        /// Formats near the refused ones still work, and SQLite counts what they bind.
        @Test func neighboursStillBindWhatSQLiteCounts() throws {
            let sqlite = try SQLiteConnection(path: ":memory:")
            try sqlite.execute("CREATE TABLE t (a, \"a$b\", \"a$$b\", \":a\", b)")
            let formats = [
                "WHERE a$b = ?", "WHERE a$$b = ?", "WHERE a = '#x:y@z$w' AND b = ?", "WHERE \":a\" = ?",
                "WHERE a = ? -- #b :c\n", "WHERE a = 1 /* @d */ AND b = ?",
            ]
            for format in formats {
                let query = try DatabaseQuery(format: format, 1)
                let statement = try sqlite.prepare("SELECT rowid FROM t " + query.sql)
                #expect(Int(statement.parameterCount) == query.bindingCount, "\(format)")
            }
        }
    }
}
