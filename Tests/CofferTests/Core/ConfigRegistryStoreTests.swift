import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A connection hands its last transaction's copy of the serializer registry to the next one
/// while nothing was registered; a registration in between must still reach the next transaction.
@Suite struct ConfigRegistryStoreTests {
    @Test func aRegistrationReachesTheNextTransactionOfAConnectionThatKeptItsCopy() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        // Both transactions resolve "c" on the same connection, the first before any registration.
        try connection.readWrite { tx in try tx.setObject("plain", forKey: "a", inCollection: "c") }
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "a", inCollection: "c", as: String.self) == "plain")
        }
        test.database.registerObjectPreSanitizer(
            { _, _, object in (object as? String).map { $0.uppercased() } ?? object }, forCollection: "c")
        try connection.readWrite { tx in try tx.setObject("loud", forKey: "b", inCollection: "c") }
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "b", inCollection: "c", as: String.self) == "LOUD")
        }

        test.database.setObjectPolicy(.copy, forCollection: "c")
        try connection.read { tx in #expect(tx.configs.registry.config(for: "c").objectPolicy == .copy) }
    }

    @Test func readsKeepTheVersionAndEveryUpdateBumpsIt() throws {
        struct Refused: Error {}
        let store = ConfigRegistryStore()
        let start = store.version
        #expect(store.read { $0.config(for: "c").objectPolicy } == .containment)
        #expect(store.version == start)
        store.update { $0.update("c") { $0.objectPolicy = .share } }
        #expect(store.version == start + 1)
        // A throwing update may have changed something before it threw.
        #expect(throws: Refused.self) {
            try store.update { registry throws(Refused) in
                registry.update("c") { $0.objectPolicy = .copy }
                throw Refused()
            }
        }
        #expect(store.version == start + 2)
        #expect(store.read { $0.config(for: "c").objectPolicy } == .copy)
    }

    @Test func aCopyKeepsWhatItWasCopiedFromAndItsVersion() {
        let store = ConfigRegistryStore()
        let kept = store.snapshot()
        #expect(kept.version == store.version)
        #expect(kept.config(for: "c").objectPolicy == .containment)
        store.update { $0.update("c") { $0.objectPolicy = .share } }
        let fresh = store.snapshot()
        #expect(fresh.version == store.version && kept.version != store.version)
        #expect(fresh.config(for: "c").objectPolicy == .share)
        #expect(kept.config(for: "c").objectPolicy == .containment)
    }

    @Test func aConnectionReplacesItsCopyOnlyAfterARegistration() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        func copy() throws -> ConfigSnapshot { try connection.read { $0.configs } }
        let first = try copy()
        #expect(try copy() === first)
        test.database.setDefaultObjectPolicy(.share)
        let second = try copy()
        #expect(second !== first && second.version == test.database.registry.version)
        #expect(try copy() === second)
    }
}
