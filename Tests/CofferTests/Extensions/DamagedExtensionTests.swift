import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension Extensions {
    /// An extension whose tables were damaged (here: dropped behind its back) fails writes with a
    /// typed error and leaves the database unchanged.
    @Suite struct DamagedExtensionTests {
        @Test func aWriteThroughAMissingIndexTableFailsTypedAndRollsBack() throws {
            let test = try TestDatabase()
            Extensions.registerCodecs(test.database)
            try test.database.register(Extensions.employeeIndex(), withName: "staff")
            let connection = try test.connection()
            try connection.readWrite { tx in
                try tx.setObject(Extensions.employee("Ada", "eng", 10), forKey: "ada", inCollection: "employees")
            }
            // Damage: the index table disappears (a hand-edited file, a bad migration, …).
            try connection.readWrite { tx in try tx.core.sqlite.execute(#"DROP TABLE "secondaryIndex_staff""#) }

            let outcome = Result {
                try connection.readWrite { tx in
                    try tx.setObject(Extensions.employee("Bob", "ops", 20), forKey: "bob", inCollection: "employees")
                }
            }
            #expect(throws: DatabaseError.self) { try outcome.get() }
            #expect(try connection.read { try $0.allKeys(inCollection: "employees") } == ["ada"])
        }
    }
}
