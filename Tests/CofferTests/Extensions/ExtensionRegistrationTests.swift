import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// The registration life cycle, through the built-in extensions: populate, reuse on reopen,
    /// repopulate on a new version tag, orphan drop, failures that leave nothing behind.
    @Suite struct ExtensionRegistrationTests {
        private struct Boom: Error {}

        private func open(_ url: URL, _ options: DatabaseOptions) throws -> Database {
            let database = try TestSupport.open(url, options: options)
            Extensions.registerCodecs(database)
            return database
        }

        private func addEmployees(_ connection: Connection, _ range: Range<Int>) throws {
            try connection.readWrite { tx in
                for i in range {
                    try tx.setObject(
                        employee("E\(i)", i.isMultiple(of: 2) ? "eng" : "ops", i), forKey: "e\(i)",
                        inCollection: "employees")
                }
            }
        }

        @Test func aNameCanBeRegisteredOnce() throws {
            let test = try TestDatabase()
            try test.database.register(employeeIndex(), withName: "staff")
            #expect(code { try test.database.register(employeeIndex(), withName: "staff") } == .extensionFailure)
            #expect(code { try test.database.register(Hooks(), withName: "staff") } == .extensionFailure)
            try test.database.register(Hooks(), withName: "hooks")
            #expect(code { try test.database.register(Hooks(), withName: "hooks") } == .extensionFailure)
            #expect(test.database.registeredExtension("staff") is SecondaryIndex)
            #expect(test.database.registeredExtension("hooks") is Hooks)
            #expect(Set(test.database.registeredExtensions.keys) == ["staff", "hooks"])
            // Hooks are not persistent: nothing about them in the file.
            try test.connection().read { tx throws in
                #expect(try yapRowCount(tx, "hooks") == 0)
                #expect(try tx.yapString(extension: "staff", key: "class") == "SecondaryIndex")
                #expect(try tx.yapString(extension: "staff", key: "versionTag") == "1")
                #expect(try tx.yapInt(extension: "staff", key: "classVersion") == 1)
            }
        }

        @Test func aFailingRegistrationLeavesNothingBehind() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            let connection = try test.connection()
            try addEmployees(connection, 0..<10)
            let snapshot = test.database.snapshot
            let failing = SecondaryIndex(
                setup: SecondaryIndexSetup([("salary", .integer)]),
                handler: .byObject(Employee.self) { _, values, _, _, employee in
                    if employee.salary == 7 { throw Boom() }
                    values["salary"] = employee.salary
                })
            #expect(code { try test.database.register(failing, withName: "pay") } == .extensionFailure)
            #expect(test.database.registeredExtension("pay") == nil)
            #expect(test.database.snapshot == snapshot)
            try connection.read { tx throws in
                #expect(tx.ext("pay") == nil)
                #expect(try !schemaHas(tx, "secondaryIndex_pay"))
                #expect(try yapRowCount(tx, "pay") == 0)
                #expect(try tx.numberOfKeys(inCollection: "employees") == 10)
            }
            // Bad setups fail the same way, before touching anything.
            let setups: [SecondaryIndexSetup] = [
                SecondaryIndexSetup(), SecondaryIndexSetup([("rowid", .integer)]),
                SecondaryIndexSetup([("a", .text), ("A", .text)]), SecondaryIndexSetup([("bad name", .text)]),
                SecondaryIndexSetup([("1st", .text)]),
            ]
            for setup in setups {
                let index = SecondaryIndex(setup: setup, handler: .byKey { _, _, _, _ in })
                #expect(code { try test.database.register(index, withName: "bad") } == .extensionFailure)
            }
            #expect(code { try test.database.register(Hooks(), withName: "bad-name") } == .extensionFailure)
            // The name is free again.
            try test.database.register(employeeIndex(), withName: "pay")
            #expect(try connection.read { tx in try tx.secondaryIndex("pay")?.count(matching: .matchingAll) } == 10)
        }

        @Test func reopeningReusesTheIndexAndANewVersionTagRepopulates() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            let calls = Locked(0)
            do {
                let database = try open(url, options)
                try addEmployees(try database.newConnection(), 0..<5)
                try database.register(employeeIndex(calls: calls), withName: "staff")
                #expect(calls.value == 5)
                try addEmployees(try database.newConnection(), 5..<8)
                #expect(calls.value == 8)
            }
            calls.withLock { $0 = 0 }
            do {
                let database = try open(url, options)
                #expect(database.previouslyRegisteredExtensionNames == ["staff"])
                try database.register(employeeIndex(calls: calls), withName: "staff")
                #expect(calls.value == 0)
                // The persisted index answers without having been rebuilt.
                #expect(
                    try database.newConnection().read { tx in try keys(tx, "WHERE department = ?", "ops") }
                        == ["e1", "e3", "e5", "e7"])
                try addEmployees(try database.newConnection(), 8..<9)
                #expect(calls.value == 1)
            }
            calls.withLock { $0 = 0 }
            do {
                let database = try open(url, options)
                try database.register(employeeIndex(versionTag: "2", calls: calls), withName: "staff")
                #expect(calls.value == 9)
                try database.newConnection().read { tx throws in
                    #expect(tx.secondaryIndex("staff")?.versionTag == "2")
                    #expect(try tx.yapString(extension: "staff", key: "versionTag") == "2")
                    #expect(try keys(tx, "WHERE department = ?", "eng") == ["e0", "e2", "e4", "e6", "e8"])
                }
            }
        }

        /// An index of salaries only.
        private let narrow = SecondaryIndex(
            setup: SecondaryIndexSetup([("salary", .integer)]),
            handler: .byObject(Employee.self) { _, values, _, _, employee in values["salary"] = employee.salary })
        /// The same name's second setup: salaries and departments.
        private let wide = SecondaryIndex(
            setup: SecondaryIndexSetup([("salary", .integer), ("department", .text)]),
            handler: .byObject(Employee.self) { _, values, _, _, employee in
                values["salary"] = employee.salary
                values["department"] = employee.department
            })

        @Test func aChangedSetupUnderTheSameTagIsRebuilt() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            do {
                let database = try open(url, options)
                try addEmployees(try database.newConnection(), 0..<4)
                try database.register(narrow, withName: "pay")
            }
            let database = try open(url, options)
            try database.register(wide, withName: "pay")
            let connection = try database.newConnection()
            #expect(
                try connection.read { tx in try keys(tx, in: "pay", "WHERE department = ?", "eng") } == ["e0", "e2"])
            try addEmployees(connection, 4..<5)
            #expect(try connection.read { tx in try keys(tx, in: "pay", "WHERE salary > ?", 2) } == ["e3", "e4"])
        }

        @Test func reRegisteringUnderTheSameNameReachesEveryConnection() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try test.database.register(narrow, withName: "pay")
            let connection = try test.connection()
            let sibling = try test.connection()
            // Both connections build their state for the first index.
            try addEmployees(connection, 0..<2)
            #expect(try connection.read { tx in try keys(tx, in: "pay", "WHERE salary > ?", 0) } == ["e1"])
            #expect(try sibling.read { tx in try keys(tx, in: "pay", "WHERE salary > ?", 0) } == ["e1"])
            try test.database.unregister(extensionNamed: "pay")
            try test.database.register(wide, withName: "pay")
            try addEmployees(connection, 2..<4)
            for reader in [connection, sibling] {
                #expect(
                    try reader.read { tx in try keys(tx, in: "pay", "WHERE department = ?", "eng") } == ["e0", "e2"])
                #expect(try reader.read { tx in try keys(tx, in: "pay", "WHERE salary > ?", 1) } == ["e2", "e3"])
            }
            try addEmployees(sibling, 4..<5)
            #expect(
                try connection.read { tx in try keys(tx, in: "pay", "WHERE department = ?", "eng") } == [
                    "e0", "e2", "e4",
                ])
        }

        @Test func extensionsNotRegisteredAgainAreDroppedAtTheFirstChangingWrite() throws {
            let directory = TemporaryDirectory()
            let url = directory.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            do {
                let database = try open(url, options)
                try database.register(employeeIndex(), withName: "kept")
                try database.register(employeeIndex(), withName: "orphan")
                try database.register(articleSearch(), withName: "lost")
                let connection = try database.newConnection()
                try addEmployees(connection, 0..<3)
                try connection.readWrite { tx in
                    try tx.setObject(Article(title: "t", body: "b"), forKey: "a", inCollection: "articles")
                }
            }
            let database = try open(url, options)
            #expect(Set(database.previouslyRegisteredExtensionNames) == ["kept", "orphan", "lost"])
            try database.register(employeeIndex(), withName: "kept")
            let connection = try database.newConnection()
            // Reads and writes that change nothing keep the orphans' tables.
            try connection.readWrite { tx in try tx.removeObject(forKey: "nobody", inCollection: "employees") }
            try connection.read { tx throws in
                #expect(try schemaHas(tx, "secondaryIndex_orphan"))
                #expect(try schemaHas(tx, "fts_lost"))
                #expect(tx.ext("orphan") == nil)
            }
            try addEmployees(connection, 3..<4)
            try connection.read { tx throws in
                #expect(try !schemaHas(tx, "secondaryIndex_orphan"))
                #expect(try !schemaHas(tx, "fts_lost"))
                #expect(
                    try tx.core.sqlite.scalarInt("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'fts_lost%'") == 0)
                #expect(try yapRowCount(tx, "orphan") == 0)
                #expect(try yapRowCount(tx, "lost") == 0)
                #expect(try schemaHas(tx, "secondaryIndex_kept"))
                #expect(try keys(tx, in: "kept", "") == ["e0", "e1", "e2", "e3"])
            }
        }

        @Test func unregisteringDropsTheTables() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try test.database.register(employeeIndex(), withName: "staff")
            try test.database.register(articleSearch(), withName: "search")
            let connection = try test.connection()
            try addEmployees(connection, 0..<2)
            try test.database.unregister(extensionNamed: "staff")
            let done = DispatchSemaphore(value: 0)
            let failure = Locked<String?>(nil)
            test.database.asyncUnregister(extensionNamed: "search") { error in
                failure.withLock { $0 = error.map { "\($0)" } }
                done.signal()
            }
            #expect(TestSupport.wait(done))
            #expect(failure.value == nil)
            #expect(test.database.registeredExtensions.isEmpty)
            try connection.read { tx throws in
                #expect(tx.secondaryIndex("staff") == nil)
                #expect(try !schemaHas(tx, "secondaryIndex_staff"))
                #expect(try !schemaHas(tx, "fts_search"))
                #expect(try yapRowCount(tx, "staff") == 0)
            }
            try addEmployees(connection, 2..<3)
            try test.database.unregister(extensionNamed: "never-registered")
        }

        @Test func aReaderPinnedBeforeTheRegistrationDoesNotSeeTheExtension() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try addEmployees(try test.connection(), 0..<3)
            let reader = try test.connection()
            _ = try reader.beginLongLivedReadTransaction()
            try test.database.register(employeeIndex(), withName: "staff")
            try test.database.register(articleSearch(), withName: "search")
            try reader.read { tx throws in
                #expect(tx.secondaryIndex("staff") == nil)
                #expect(tx.fullTextSearch("search") == nil)
                let raw = try #require(tx.ext("staff", as: SecondaryIndexTransaction.self))
                #expect(code { _ = try raw.count(matching: .matchingAll) } == .extensionFailure)
            }
            _ = try reader.endLongLivedReadTransaction()
            #expect(try reader.read { tx in try tx.secondaryIndex("staff")?.count(matching: .matchingAll) } == 3)
        }

        @Test func asyncRegistrationWhileOtherConnectionsReadAndWrite() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try addEmployees(try test.connection(), 0..<200)
            let writer = try test.connection()
            let reader = try test.connection()
            let database = test.database
            let outcome = TestSupport.runBounded(timeout: .seconds(60)) { () throws -> (Int, Int, Int) in
                let registered = DispatchSemaphore(value: 0)
                let failure = Locked<String?>(nil)
                database.asyncRegister(employeeIndex(), withName: "staff") { error in
                    failure.withLock { $0 = error.map { "\($0)" } }
                    registered.signal()
                }
                let group = DispatchGroup()
                let errors = Locked(0)
                DispatchQueue.global().async(group: group) {
                    for i in 200..<260 {
                        do {
                            try writer.readWrite { tx in
                                try tx.setObject(
                                    employee("W\(i)", "eng", i), forKey: "e\(i)", inCollection: "employees")
                                if i.isMultiple(of: 3) {
                                    try tx.removeObject(forKey: "e\(i - 150)", inCollection: "employees")
                                }
                            }
                        } catch { errors.withLock { $0 += 1 } }
                    }
                }
                DispatchQueue.global().async(group: group) {
                    for _ in 0..<60 {
                        do {
                            _ = try reader.read { tx in
                                // Before the registration commits there is no index; after, it is complete.
                                if let index = tx.secondaryIndex("staff"),
                                    try index.count(matching: .matchingAll)
                                        != tx.numberOfKeys(inCollection: "employees")
                                {
                                    errors.withLock { $0 += 1 }
                                }
                            }
                        } catch { errors.withLock { $0 += 1 } }
                    }
                }
                guard TestSupport.wait(registered, timeout: .seconds(50)),
                    TestSupport.wait(group, timeout: .seconds(50)),
                    failure.value == nil
                else { return (-1, -1, -1) }
                return try reader.read { tx in
                    (
                        try tx.secondaryIndex("staff")?.count(matching: .matchingAll) ?? -1,
                        try tx.numberOfKeys(inCollection: "employees"), errors.value
                    )
                }
            }
            let (indexed, rows, errors) = try #require(try outcome?.get())
            #expect(rows == 240)
            #expect(indexed == rows)
            #expect(errors == 0)
        }
    }
}
