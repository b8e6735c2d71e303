import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// SecondaryIndex under rollback, failure, misuse and concurrent snapshots.
    @Suite struct SecondaryIndexConsistencyTests {
        private struct Boom: Error {}

        private func setUp() throws -> (TestDatabase, Connection) {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try test.database.register(employeeIndex(), withName: "staff")
            let connection = try test.connection()
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Ada", "eng", 10), forKey: "ada", inCollection: "employees")
            }
            return (test, connection)
        }

        @Test func rollbackLeavesNothingInTheIndex() throws {
            let (_, connection) = try setUp()
            #expect(throws: Boom.self) {
                try connection.readWrite { tx throws in
                    try tx.setObject(employee("Bo", "eng", 20), forKey: "bo", inCollection: "employees")
                    try tx.removeObject(forKey: "ada", inCollection: "employees")
                    #expect(try keys(tx, "") == ["bo"])
                    throw Boom()
                }
            }
            try connection.readWrite { tx throws in
                try tx.removeAllObjectsInAllCollections()
                #expect(try keys(tx, "").isEmpty)
                tx.rollback()
            }
            try connection.read { tx throws in
                #expect(try keys(tx, "") == ["ada"])
                #expect(try indexTable(tx, "secondaryIndex_staff").count == 1)
            }
        }

        @Test func aThrowingHandlerFailsTheWriteAndRollsBackEvenWhenCaught() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            let index = SecondaryIndex(
                setup: SecondaryIndexSetup([("salary", .integer)]),
                handler: .byObject(Employee.self) { _, values, _, _, employee in
                    if employee.salary < 0 { throw Boom() }
                    values["salary"] = employee.salary
                })
            try test.database.register(index, withName: "pay")
            let connection = try test.connection()
            // The caller swallows the error, but the transaction is already doomed: later writes
            // are refused and readWrite rethrows the handler's error after rolling back.
            let outcome = Result {
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Ok", "x", 1), forKey: "ok", inCollection: "employees")
                #expect(throws: Boom.self) {
                    try tx.setObject(employee("Bad", "x", -1), forKey: "bad", inCollection: "employees")
                }
                #expect(
                    code { try tx.setObject(employee("More", "x", 2), forKey: "more", inCollection: "employees") }
                        == .misuse)
            }
            }
            #expect(throws: Boom.self) { try outcome.get() }
            try connection.read { tx throws in
                #expect(try tx.numberOfKeys(inCollection: "employees") == 0)
                #expect(try tx.secondaryIndex("pay")?.count(matching: .matchingAll) == 0)
            }
        }

        @Test func aHandlerSettingAnUnknownColumnIsATypedError() throws {
            let test = try TestDatabase()
            let index = SecondaryIndex(
                setup: SecondaryIndexSetup([("salary", .integer)]),
                handler: .byKey { _, values, _, _ in values["salry"] = 1 })
            try test.database.register(index, withName: "typo")
            let connection = try test.connection()
            let failure = code {
                try connection.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: nil) }
            }
            #expect(failure == .extensionFailure)
            #expect(try connection.read { tx in try tx.numberOfKeysInAllCollections() } == 0)
        }

        @Test func malformedQueriesAreTypedErrors() throws {
            let (_, connection) = try setUp()
            try connection.read { tx throws in
                let index = try #require(tx.secondaryIndex("staff"))
                #expect(
                    code { _ = try index.count(matching: DatabaseQuery(format: "WHERE nonsense = ?", 1)) }
                        == .invalidQuery)
                #expect(
                    code { _ = try index.keys(matching: DatabaseQuery(format: "WHERE salary >>> ?", 1)) }
                        == .invalidQuery)
                #expect(code { _ = try index.keys(matching: DatabaseQuery(format: "WHERE ORDER BY")) } == .invalidQuery)
                #expect(code { _ = try index.count(matching: .aggregate("SUM(salary)")) } == .invalidQuery)
                #expect(code { _ = try index.performAggregateQuery(.matchingAll) } == .invalidQuery)
                #expect(code { _ = try index.performAggregateQuery(.aggregate("NOPE(salary)")) } == .invalidQuery)
                #expect(
                    code {
                        try index.enumerateIndexedValues(inColumn: "database2", matching: .matchingAll) { _, _ in }
                    } == .invalidQuery)
                // After all that the index still answers.
                #expect(try index.count(matching: .matchingAll) == 1)
            }
        }

        @Test func usingTheIndexAfterItsTransactionIsMisuseNotACrash() throws {
            let (_, connection) = try setUp()
            let escaped = try connection.read { tx in try #require(tx.secondaryIndex("staff")) }
            #expect(code { _ = try escaped.count(matching: .matchingAll) } == .misuse)
            #expect(code { _ = try escaped.keys(matching: .matchingAll) } == .misuse)
            try connection.read { tx in #expect(tx.secondaryIndex("missing") == nil) }
        }

        @Test func changingTheDatabaseInsideAnEnumerationIsDetected() throws {
            let (_, connection) = try setUp()
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Bo", "eng", 20), forKey: "bo", inCollection: "employees")
                let index = try #require(tx.secondaryIndex("staff"))
                #expect(
                    code {
                        try index.enumerateKeys(matching: .matchingAll) { _, key, _ in
                            try tx.setObject(
                                employee("X\(key)", "eng", 1), forKey: "x\(key)", inCollection: "employees")
                        }
                    } == .mutationDuringEnumeration)
                // Setting stop after a change is fine.
                try index.enumerateKeys(matching: .matchingAll) { _, _, stop in
                    try tx.removeObject(forKey: "bo", inCollection: "employees")
                    stop = true
                }
            }
        }

        @Test func aSiblingSeesTheIndexExactlyWhenItSeesTheRow() throws {
            let (test, writer) = try setUp()
            let reader = try test.connection()
            _ = try reader.beginLongLivedReadTransaction()
            try writer.readWrite { tx throws in
                try tx.setObject(employee("Bo", "eng", 20), forKey: "bo", inCollection: "employees")
                try tx.removeObject(forKey: "ada", inCollection: "employees")
            }
            try reader.read { tx throws in
                #expect(try tx.hasObject(forKey: "bo", inCollection: "employees") == false)
                #expect(try keys(tx, "") == ["ada"])
            }
            _ = try reader.beginLongLivedReadTransaction()
            try reader.read { tx throws in
                #expect(try tx.hasObject(forKey: "bo", inCollection: "employees"))
                #expect(try keys(tx, "") == ["bo"])
            }
            _ = try reader.endLongLivedReadTransaction()
        }
    }
}
