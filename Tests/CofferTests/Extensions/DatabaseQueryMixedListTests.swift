import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// `IN (?)` lists that mix value types, through a real SecondaryIndex.
    @Suite struct DatabaseQueryMixedListTests {
        struct Employee: Codable, Sendable {
            var department: String
            var salary: Int
        }

        private func staff() throws -> (TestDatabase, Connection) {
            let test = try TestDatabase()
            test.database.registerCodable(Employee.self, forCollection: "employees")
            let index = SecondaryIndex(
                setup: SecondaryIndexSetup([("department", .text), ("salary", .integer)]),
                handler: .byObject(Employee.self) { _, values, _, _, employee in
                    values["department"] = employee.department
                    values["salary"] = employee.salary
                },
                versionTag: "1",
                allowedCollections: .only(["employees"]))
            try test.database.register(index, withName: "staff")
            let connection = try test.connection()
            try connection.readWrite { tx throws in
                try tx.setObject(Employee(department: "eng", salary: 150_000), forKey: "ada", inCollection: "employees")
                try tx.setObject(Employee(department: "eng", salary: 90_000), forKey: "bob", inCollection: "employees")
                try tx.setObject(Employee(department: "ops", salary: 120_000), forKey: "cy", inCollection: "employees")
            }
            return (test, connection)
        }

        @Test func theDocumentedMixedListSelectsItsRows() throws {
            let (_, connection) = try staff()
            let picked = try connection.read { tx in
                // The line DatabaseExtensions.md shows.
                let query = try DatabaseQuery(
                    format: "WHERE salary IN (?) AND department = ?", .list(90_000, 150_000.0), "eng")
                return try tx.secondaryIndex("staff")?.keys(matching: query) ?? []
            }
            #expect(Set(picked.map(\.key)) == ["ada", "bob"])
        }

        @Test func listsOfSeveralTypesExpandAndBindInOrder() throws {
            let (_, connection) = try staff()
            let query = try DatabaseQuery(
                format: "WHERE department IN (?) OR salary = ?", .list("ops", 7, nil as Int?), 90_000)
            #expect(query.sql == "WHERE department IN (?, ?, ?) OR salary = ?")
            #expect(query.bindings == [.text("ops"), .integer(7), .null, .integer(90_000)])
            let built: [any DatabaseValueConvertible] = ["eng", 2.5, Data([1])]
            let runtime = try DatabaseQuery(format: "WHERE department IN (?)", .list(contentsOf: built))
            #expect(runtime.bindings == [.text("eng"), .real(2.5), .blob(Data([1]))])
            let empty = try DatabaseQuery(format: "WHERE department IN (?)", .list())
            try connection.read { tx throws in
                let index = try #require(tx.secondaryIndex("staff"))
                #expect(Set(try index.keys(matching: query).map(\.key)) == ["bob", "cy"])
                #expect(Set(try index.keys(matching: runtime).map(\.key)) == ["ada", "bob"])
                #expect(try index.keys(matching: empty).isEmpty)
            }
        }
    }
}
