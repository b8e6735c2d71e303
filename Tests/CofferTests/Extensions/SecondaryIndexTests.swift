import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// SecondaryIndex: population, queries, and an exact index after every kind of write.
    @Suite struct SecondaryIndexTests {
        private func setUp(_ kind: TestKeyKind = .raw) throws -> (TestDatabase, Connection) {
            let test = try TestDatabase(kind)
            Extensions.registerCodecs(test.database)
            return (test, try test.connection())
        }

        private func seed(_ connection: Connection) throws {
            try connection.readWrite { tx throws in
                try tx.setObject(
                    employee("Ada", "eng", 150_000, hiredDay: 0), forKey: "ada", inCollection: "employees",
                    withMetadata: Badge(level: 3))
                try tx.setObject(employee("Bob", "eng", 90_000, hiredDay: 10), forKey: "bob", inCollection: "employees")
                try tx.setObject(
                    employee("Cy", "ops", 120_000, hiredDay: 20), forKey: "cy", inCollection: "employees",
                    withMetadata: Badge(level: 1))
                try tx.setObject(employee("Di", "qa", 100_000, hiredDay: 30), forKey: "di", inCollection: "employees")
                // Another collection: not allowed, never indexed.
                try tx.setObject(employee("Ed", "eng", 500_000), forKey: "ed", inCollection: "contractors")
            }
        }

        @Test(arguments: TestKeyKind.allCases)
        func registrationPopulatesFromExistingRowsAndQueriesWork(kind: TestKeyKind) throws {
            let (test, connection) = try setUp(kind)
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            try connection.read { tx throws in
                #expect(try keys(tx, "WHERE department = ? AND salary >= ?", "eng", 100_000) == ["ada"])
                #expect(try keys(tx, "WHERE department = ?", "eng") == ["ada", "bob"])
                #expect(try keys(tx, "WHERE level IS NOT NULL") == ["ada", "cy"])
                #expect(try keys(tx, "WHERE hired >= ?", epoch.addingTimeInterval(15 * day)) == ["cy", "di"])
                let index = try #require(tx.secondaryIndex("staff"))
                #expect(index.versionTag == "1")
                #expect(try index.count(matching: .matchingAll) == 4)
                #expect(try index.count(matching: DatabaseQuery(format: "WHERE salary < ?", 110_000)) == 2)
                // Ordered queries come back in SQLite's order.
                let ordered = try index.keys(matching: DatabaseQuery(format: "ORDER BY salary DESC LIMIT 2"))
                #expect(ordered.map(\.key) == ["ada", "cy"])
                #expect(ordered.allSatisfy { $0.collection == "employees" })
            }
        }

        @Test func enumerationsReturnObjectsMetadataAndRows() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            try connection.read { tx throws in
                let index = try #require(tx.secondaryIndex("staff"))
                let query = try DatabaseQuery(format: "WHERE department = ? ORDER BY name", "eng")
                var names: [String] = []
                try index.enumerateKeysAndObjects(matching: query) { collection, _, object, _ in
                    #expect(collection == "employees")
                    names.append((object as? Employee)?.name ?? "?")
                }
                #expect(names == ["Ada", "Bob"])
                var badges: [String: Badge?] = [:]
                try index.enumerateKeysAndMetadata(matching: query) { _, key, metadata, _ in
                    badges[key] = metadata as? Badge
                }
                #expect(badges == ["ada": Badge(level: 3), "bob": nil])
                var rows: [String] = []
                try index.enumerateRows(matching: query) { _, key, object, metadata, stop in
                    rows.append("\(key):\((object as? Employee)?.salary ?? 0):\((metadata as? Badge)?.level ?? 0)")
                    stop = true
                }
                #expect(rows == ["ada:150000:3"])
                var salaries: [Int64] = []
                try index.enumerateIndexedValues(inColumn: "salary", matching: DatabaseQuery(format: "ORDER BY salary"))
                {
                    value, _ in salaries.append(value.int64Value ?? -1)
                }
                #expect(salaries == [90_000, 100_000, 120_000, 150_000])
            }
        }

        @Test func inListsIncludingEmptyOnes() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            let none: [String] = []
            try connection.read { tx throws in
                #expect(try keys(tx, "WHERE department IN (?)", ["ops", "qa"]) == ["cy", "di"])
                #expect(try keys(tx, "WHERE department IN (?)", Set(["eng"])) == ["ada", "bob"])
                #expect(try keys(tx, "WHERE department IN (?)", none).isEmpty)
                #expect(try keys(tx, "WHERE department NOT IN (?)", none) == ["ada", "bob", "cy", "di"])
                // NULL columns too: NOT IN an empty set is true even for NULL.
                #expect(try keys(tx, "WHERE level NOT IN (?)", [Int]()) == ["ada", "bob", "cy", "di"])
                #expect(try keys(tx, "WHERE level IN (?)", [Int]()).isEmpty)
            }
        }

        @Test func aggregateQueries() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            try connection.read { tx throws in
                let index = try #require(tx.secondaryIndex("staff"))
                let sum = try index.performAggregateQuery(
                    .aggregate("SUM(salary)", format: "WHERE department = ?", "eng"))
                #expect(sum == .integer(240_000))
                let average = try index.performAggregateQuery(.aggregate("AVG(salary)"))
                #expect(average.doubleValue == 115_000)
                let latest = try index.performAggregateQuery(.aggregate("MAX(hired)"))
                #expect(latest.dateValue == epoch.addingTimeInterval(30 * day))
                let nothing = try index.performAggregateQuery(
                    .aggregate("SUM(salary)", format: "WHERE department = ?", "hr"))
                #expect(nothing.isNull)
            }
        }

        @Test func everyKindOfWriteKeepsTheIndexExact() throws {
            let (test, connection) = try setUp()
            let reader = try test.connection()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            let all = { (c: Connection) in try c.read { tx in try keys(tx, "") } }

            // Insert and update (setObject on an existing key), seen inside the write and by a sibling.
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Fay", "ops", 80_000), forKey: "fay", inCollection: "employees")
                try tx.setObject(employee("Bob", "ops", 95_000, hiredDay: 10), forKey: "bob", inCollection: "employees")
                #expect(try keys(tx, "WHERE department = ?", "ops") == ["bob", "cy", "fay"])
            }
            #expect(try reader.read { tx in try keys(tx, "WHERE department = ?", "ops") } == ["bob", "cy", "fay"])

            // Replace object, replace metadata (the row handler reads both).
            try connection.readWrite { tx throws in
                try tx.replaceObject(
                    employee("Cy", "eng", 125_000, hiredDay: 20), forKey: "cy", inCollection: "employees")
                try tx.replaceMetadata(Badge(level: 9), forKey: "di", inCollection: "employees")
            }
            try reader.read { tx throws in
                #expect(try keys(tx, "WHERE department = ?", "eng") == ["ada", "cy"])
                #expect(try keys(tx, "WHERE level = ?", 9) == ["di"])
                #expect(try keys(tx, "WHERE level = ?", 1) == ["cy"])  // replaceObject kept cy's metadata
            }

            // A value that yields no entry removes the existing one; a valid one brings it back.
            try connection.readWrite { tx throws in
                try tx.replaceObject(employee("Di", "qa", -1), forKey: "di", inCollection: "employees")
            }
            #expect(try all(reader) == ["ada", "bob", "cy", "fay"])
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Di", "qa", 1), forKey: "di", inCollection: "employees")
            }
            #expect(try all(reader) == ["ada", "bob", "cy", "di", "fay"])

            // Remove one, remove several (one missing), remove a collection, remove everything.
            try connection.readWrite { tx in try tx.removeObject(forKey: "fay", inCollection: "employees") }
            #expect(try all(reader) == ["ada", "bob", "cy", "di"])
            try connection.readWrite { tx throws in
                try tx.removeObjects(forKeys: ["bob", "nobody", "di"], inCollection: "employees")
            }
            #expect(try all(reader) == ["ada", "cy"])
            try connection.readWrite { tx throws in
                try tx.removeAllObjects(inCollection: "contractors")
                #expect(try keys(tx, "") == ["ada", "cy"])  // another collection's removal leaves the index alone
                try tx.removeAllObjects(inCollection: "employees")
                #expect(try keys(tx, "").isEmpty)
            }
            #expect(try all(reader).isEmpty)
            try connection.readWrite { tx throws in
                try tx.setObject(employee("Gil", "eng", 1), forKey: "gil", inCollection: "employees")
                try tx.setObject(employee("Hal", "eng", 1), forKey: "hal", inCollection: "employees")
            }
            #expect(try all(reader) == ["gil", "hal"])
            try connection.readWrite { tx in try tx.removeAllObjectsInAllCollections() }
            try reader.read { tx throws in
                #expect(try keys(tx, "").isEmpty)
                #expect(try indexTable(tx, "secondaryIndex_staff").isEmpty)
            }
        }

        @Test func theIndexTableMatchesYapDatabaseLayout() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            try connection.read { tx throws in
                let rows = try indexTable(tx, "secondaryIndex_staff")
                let rowid = try #require(try tx.rowid(for: CollectionKey(collection: "employees", key: "ada")))
                #expect(
                    rows[rowid] == [
                        .text("Ada"), .text("eng"), .integer(150_000), .real(epoch.timeIntervalSinceReferenceDate),
                        .integer(3),
                    ])
                #expect(rows.count == 4)
                for column in ["name", "department", "salary", "hired", "level"] {
                    #expect(try schemaHas(tx, "secondaryIndex_staff_\(column)"))
                }
            }
        }

        @Test func handlersRunOnlyWhenTheirInputChanges() throws {
            let (test, connection) = try setUp()
            let objectCalls = Locked(0)
            let metadataCalls = Locked(0)
            let keyCalls = Locked(0)
            let byObject = SecondaryIndex(
                setup: SecondaryIndexSetup([("salary", .integer)]),
                handler: .byObject(Employee.self) { _, values, _, _, employee in
                    objectCalls.withLock { $0 += 1 }
                    values["salary"] = employee.salary
                })
            let byMetadata = SecondaryIndex(
                setup: SecondaryIndexSetup([("level", .integer)]),
                handler: .byMetadata { _, values, _, _, metadata in
                    metadataCalls.withLock { $0 += 1 }
                    values["level"] = (metadata as? Badge)?.level
                })
            let byKey = SecondaryIndex(
                setup: SecondaryIndexSetup([("initial", .text)]),
                handler: .byKey { _, values, _, key in
                    keyCalls.withLock { $0 += 1 }
                    values["initial"] = String(key.prefix(1))
                })
            let calls = { [objectCalls.value, metadataCalls.value, keyCalls.value] as [Int] }
            try test.database.register(byObject, withName: "objects")
            try test.database.register(byMetadata, withName: "metadata")
            try test.database.register(byKey, withName: "keys")
            try connection.readWrite { tx throws in
                try tx.setObject(
                    employee("A", "x", 1), forKey: "a", inCollection: "employees", withMetadata: Badge(level: 1))
            }
            #expect(calls() == [1, 1, 1])
            try connection.readWrite { tx in
                try tx.replaceMetadata(Badge(level: 2), forKey: "a", inCollection: "employees")
            }
            #expect(calls() == [1, 2, 1])
            try connection.readWrite { tx in
                try tx.replaceObject(employee("A", "x", 2), forKey: "a", inCollection: "employees")
            }
            #expect(calls() == [2, 2, 1])
            try connection.readWrite { tx in try tx.touchObject(forKey: "a", inCollection: "employees") }
            #expect(calls() == [3, 2, 1])
            try connection.readWrite { tx in try tx.touchMetadata(forKey: "a", inCollection: "employees") }
            #expect(calls() == [3, 3, 1])
            try connection.readWrite { tx throws in
                try tx.setObject(
                    employee("A", "x", 3), forKey: "a", inCollection: "employees", withMetadata: Badge(level: 4))
            }
            #expect(calls() == [4, 4, 1])
            try connection.read { tx throws in
                #expect(try keys(tx, in: "objects", "WHERE salary = ?", 3) == ["a"])
                #expect(try keys(tx, in: "metadata", "WHERE level = ?", 4) == ["a"])
                #expect(try keys(tx, in: "keys", "WHERE initial = ?", "a") == ["a"])
            }
        }

        @Test func twoIndexesMayShareColumnNames() throws {
            let (test, connection) = try setUp()
            try seed(connection)
            try test.database.register(employeeIndex(), withName: "staff")
            try test.database.register(employeeIndex(allowed: .only(["contractors"])), withName: "contract")
            try connection.read { tx throws in
                #expect(try keys(tx, in: "contract", "WHERE department = ?", "eng") == ["ed"])
                #expect(try schemaHas(tx, "secondaryIndex_contract_department"))
                #expect(try schemaHas(tx, "secondaryIndex_staff_department"))
            }
        }
    }
}
