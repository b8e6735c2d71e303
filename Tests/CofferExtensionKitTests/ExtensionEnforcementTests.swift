import Coffer
import CofferTestSupport
import Foundation
import Testing

extension ExtensionKit {
    /// What an extension's statements may touch, as SQLite's authorizer enforces it: statements
    /// outside the extension's own tables fail with `.extensionFailure` and change nothing.
    @Suite struct ExtensionEnforcementTests {
        /// A statement an extension must not run, and how to run it.
        struct Attempt: Sendable, CustomTestStringConvertible {
            let label: String
            let sql: String
            /// Whether the SQL holds several statements (run through `execute` only).
            var several = false

            var testDescription: String { label }
        }

        /// A database with rows, a secondary index `x` over them, and a probe with a row in its table.
        private func makeDatabase() throws -> KitDatabase {
            let test = try KitDatabase()
            let connection = try test.connection()
            try connection.readWrite { tx in try addRows(tx, 2, in: "a") }
            let index = SecondaryIndex(
                setup: SecondaryIndexSetup([("k", .text)]), handler: .key { row, values in values["k"] = row.key })
            try test.database.register(index, withName: "x")
            try test.database.register(SQLProbe(), withName: "probe")
            _ = try connection.readWrite { tx in try probe(tx).tables.run(#"INSERT INTO "probe_probe" VALUES (1)"#) }
            return test
        }

        private func probe(_ tx: ReadTransaction, _ name: String = "probe") throws -> SQLProbeTransaction {
            try tx.extension(name, as: SQLProbeTransaction.self)
        }

        static let writeAttempts: [Attempt] = [
            Attempt(
                label: "insert into database2",
                sql: #"INSERT INTO "database2" ("collection", "key") VALUES ('a', 'evil')"#),
            Attempt(label: "update database2", sql: #"UPDATE "database2" SET "metadata" = x'00'"#),
            Attempt(label: "delete from database2", sql: #"DELETE FROM "database2""#),
            Attempt(label: "read yap2", sql: #"SELECT * FROM "yap2""#),
            Attempt(label: "insert into yap2", sql: #"INSERT INTO "yap2" VALUES ('probe', 'evil', 1)"#),
            Attempt(label: "delete from yap2", sql: #"DELETE FROM "yap2""#),
            Attempt(label: "read another extension's table", sql: #"SELECT * FROM "secondaryIndex_x""#),
            Attempt(label: "write another extension's table", sql: #"DELETE FROM "secondaryIndex_x""#),
            Attempt(label: "drop another extension's table", sql: #"DROP TABLE "secondaryIndex_x""#),
            Attempt(
                label: "index another extension's table",
                sql: #"CREATE INDEX "probe_probe_i" ON "secondaryIndex_x" ("k")"#),
            Attempt(label: "create an undeclared table", sql: #"CREATE TABLE "undeclared" ("value")"#),
            Attempt(label: "create a table named like its own", sql: #"CREATE TABLE "probe_probe_extra" ("value")"#),
            Attempt(
                label: "index named after no table of its own", sql: #"CREATE INDEX "loose" ON "probe_probe" ("value")"#
            ),
            Attempt(
                label: "delete from sqlite_master", sql: #"DELETE FROM "sqlite_master" WHERE "name" = 'probe_probe'"#),
            Attempt(label: "update sqlite_master", sql: #"UPDATE "sqlite_master" SET "sql" = "sql""#),
            Attempt(
                label: "insert into sqlite_master",
                sql: #"INSERT INTO "sqlite_master" VALUES ('table', 't', 't', 0, '')"#),
            Attempt(label: "attach", sql: #"ATTACH DATABASE ':memory:' AS "other""#),
            Attempt(label: "pragma user_version write", sql: "PRAGMA user_version = 7"),
            Attempt(label: "pragma writable_schema", sql: "PRAGMA writable_schema = 1"),
            Attempt(label: "pragma journal_mode", sql: "PRAGMA journal_mode = DELETE"),
            Attempt(label: "pragma foreign_keys", sql: "PRAGMA foreign_keys = ON"),
            Attempt(label: "begin", sql: "BEGIN"),
            Attempt(label: "commit", sql: "COMMIT"),
            Attempt(label: "rollback", sql: "ROLLBACK"),
            Attempt(label: "savepoint", sql: #"SAVEPOINT "mine""#),
            Attempt(label: "release the platform's savepoint", sql: #"RELEASE SAVEPOINT "coffer_extension""#),
            Attempt(label: "temp table", sql: #"CREATE TEMP TABLE "scratch" ("value")"#),
            Attempt(label: "temp table shadowing its own", sql: #"CREATE TEMP TABLE "probe_probe" ("value")"#),
            Attempt(label: "rename its own table", sql: #"ALTER TABLE "probe_probe" RENAME TO "probe_renamed""#),
            Attempt(
                label: "rename another extension's table",
                sql: #"ALTER TABLE "secondaryIndex_x" RENAME TO "probe_probe_x""#),
            Attempt(
                label: "trigger",
                sql: #"CREATE TRIGGER "probe_probe_t" AFTER INSERT ON "probe_probe" BEGIN DELETE FROM "database2"; END"#
            ),
            Attempt(label: "view", sql: #"CREATE VIEW "probe_probe_v" AS SELECT * FROM "database2""#),
            Attempt(label: "analyze everything", sql: "ANALYZE"),
            Attempt(label: "reindex everything", sql: "REINDEX"),
            Attempt(
                label: "allowed statement, then a refused one",
                sql: #"INSERT INTO "probe_probe" VALUES (2); DELETE FROM "database2""#, several: true),
            Attempt(
                label: "own table made, then a refused statement",
                sql: #"CREATE TABLE "probe_probe_content" ("value"); INSERT INTO "yap2" VALUES ('probe', 'evil', 1)"#,
                several: true),
        ]

        @Test(arguments: writeAttempts)
        func aStatementOutsideItsTablesFailsAndChangesNothing(_ attempt: Attempt) throws {
            let test = try makeDatabase()
            let connection = try test.connection()
            let before = try test.fingerprint()
            try connection.readWrite { tx in
                let tables = try probe(tx).tables
                let execute = databaseError { try tables.execute(attempt.sql) }
                #expect(execute?.code == .extensionFailure, "execute: \(String(describing: execute))")
                guard !attempt.several else { return }
                let run = databaseError { try tables.run(attempt.sql) }
                #expect(run?.code == .extensionFailure, "run: \(String(describing: run))")
                let query = databaseError { try tables.query(attempt.sql) { _, _ in } }
                #expect(query?.code == .extensionFailure, "query: \(String(describing: query))")
            }
            #expect(try test.fingerprint() == before)
            // The connection, the index and the probe still work.
            try connection.readWrite { tx in try addRows(tx, 1, in: "b") }
            try connection.read { tx throws in
                #expect(try tx.secondaryIndex("x")?.count(matching: .matchingAll) == 3)
                #expect(try probe(tx).tables.scalar(#"SELECT count(*) FROM "probe_probe""#) == .integer(1))
            }
        }

        @Test func countingTheRowsOfATableItDoesNotOwnIsNotRefusedYet() throws {
            let test = try makeDatabase()
            try test.connection().read { tx in
                let tables = try probe(tx).tables
                for table in ["yap2", "secondaryIndex_x"] {
                    // SQLite 3.15 asks the authorizer about each column a statement reads, and
                    // `count(*)` reads none: a row count of any table is not refused.
                    withKnownIssue("SQLite 3.15's authorizer is not asked about a table no column is read from") {
                        let sql = "SELECT count(*) FROM \(ExtensionTables.quote(table))"
                        #expect(code { _ = try tables.scalar(sql) } == .extensionFailure)
                    }
                }
            }
        }

        static let readOnlyAttempts: [Attempt] = [
            Attempt(label: "insert", sql: #"INSERT INTO "probe_probe" VALUES (2)"#),
            Attempt(label: "update", sql: #"UPDATE "probe_probe" SET "value" = 3"#),
            Attempt(label: "delete", sql: #"DELETE FROM "probe_probe""#),
            Attempt(label: "drop", sql: #"DROP TABLE "probe_probe""#),
            Attempt(label: "create", sql: #"CREATE TABLE IF NOT EXISTS "probe_probe" ("value")"#),
            Attempt(label: "index", sql: #"CREATE INDEX "probe_probe_value" ON "probe_probe" ("value")"#),
        ]

        @Test(arguments: readOnlyAttempts)
        func aWriteInAReadOnlyTransactionFails(_ attempt: Attempt) throws {
            let test = try makeDatabase()
            let connection = try test.connection()
            let before = try test.fingerprint()
            try connection.read { tx in
                let tables = try probe(tx).tables
                #expect(code { try tables.execute(attempt.sql) } == .extensionFailure)
                #expect(code { try tables.run(attempt.sql) } == .extensionFailure)
                #expect(code { try tables.setRecord(.integer(1), forKey: "mine") } == .misuse)
            }
            #expect(try test.fingerprint() == before)
        }

        @Test func itsOwnTablesAndReadsOfRowsAndDependenciesAreAllowed() throws {
            let test = try makeDatabase()
            try test.database.register(SQLProbe(dependencies: ["x"]), withName: "reader")
            let connection = try test.connection()
            try connection.readWrite { tx in
                let tables = try probe(tx).tables
                try tables.execute(#"CREATE INDEX IF NOT EXISTS "probe_probe_value" ON "probe_probe" ("value")"#)
                try tables.run(#"INSERT INTO "probe_probe" VALUES (?)"#, [.integer(2)])
                try tables.run(#"UPDATE "probe_probe" SET "value" = "value" + 10"#)
                try tables.setRecord(.text("kept"), forKey: "mine")
                #expect(try tables.scalar(#"SELECT count(*) FROM "database2""#) == .integer(2))
                #expect(
                    try tables.scalar(
                        #"SELECT count(*) FROM "probe_probe" JOIN "database2" ON "database2"."rowid" = "probe_probe"."value""#
                    )
                        == .integer(0))
                #expect(code { try tables.setRecord(.integer(1), forKey: "versionTag") } == .misuse)
            }
            try connection.read { tx throws in
                let tables = try probe(tx).tables
                #expect(try tables.scalar(#"SELECT sum("value") FROM "probe_probe""#) == .integer(23))
                #expect(try tables.scalar(#"SELECT count(*) FROM "database2""#) == .integer(2))
                #expect(try tables.record(forKey: "mine") == .text("kept"))
                let reader = try probe(tx, "reader").tables
                #expect(try reader.scalar(#"SELECT count("k") FROM "secondaryIndex_x""#) == .integer(2))
                #expect(code { _ = try reader.scalar(#"SELECT sum("value") FROM "probe_probe""#) } == .extensionFailure)
            }
            // Reading a dependency is not writing it.
            try connection.readWrite { tx in
                let reader = try probe(tx, "reader").tables
                #expect(code { try reader.run(#"DELETE FROM "secondaryIndex_x""#) } == .extensionFailure)
            }
            #expect(try test.records(ofExtension: "probe").contains("mine"))
        }

        static let takenTableNames: [String] = [
            "secondaryIndex_x", "SECONDARYINDEX_X", "secondaryIndex_x_content", "probe_probe", "probe", "shared",
            "database2", "Database2", "yap2", "sqlite_master", "sqlite_stat1", "sqlite_mine", "bad name", "",
        ]

        @Test(arguments: takenTableNames)
        func aDeclaredTableThatIsTakenIsRefusedAtRegistration(_ table: String) throws {
            let test = try makeDatabase()
            // "probe_node" is one of the names SQLite's modules give the shadow tables of "probe".
            try test.database.register(SQLProbe(tables: ["shared", "probe_node"]), withName: "owner")
            let before = try test.fingerprint()
            let error = databaseError { try test.database.register(SQLProbe(tables: [table]), withName: "bad") }
            #expect(error?.code == .extensionFailure, "\(String(describing: error))")
            #expect(test.database.registeredExtension("bad") == nil)
            #expect(try test.records(ofExtension: "bad").isEmpty)
            #expect(try test.fingerprint() == before)
        }

        @Test func aTableRecordedByAnExtensionNotRegisteredAgainIsTakenOverClean() throws {
            let test = try KitDatabase()
            try test.database.register(SQLProbe(), withName: "old")
            let connection = try test.connection()
            _ = try connection.readWrite { tx in
                try probe(tx, "old").tables.run(#"INSERT INTO "probe_old" VALUES ('stale')"#)
            }
            try test.reopen()
            #expect(test.database.previouslyRegisteredExtensionNames == ["old"])
            // Another extension declares the table the old one recorded.
            try test.database.register(SQLProbe(tables: ["probe_old"]), withName: "new")
            let writer = try test.connection()
            try writer.readWrite { tx in try addRows(tx, 1, in: "a") }
            try writer.read { tx throws in
                let tables = try probe(tx, "new").tables
                #expect(try tables.exists("probe_old"))
                #expect(try tables.scalar(#"SELECT count(*) FROM "probe_old" WHERE "value" = 'stale'"#) == .integer(0))
            }
            _ = try writer.readWrite { tx in
                try probe(tx, "new").tables.run(#"INSERT INTO "probe_old" VALUES ('fresh')"#)
            }
            #expect(try test.records(ofExtension: "old").isEmpty)
            #expect(try test.schemaNames(withPrefix: "probe_") == ["probe_old"])
        }
    }
}
