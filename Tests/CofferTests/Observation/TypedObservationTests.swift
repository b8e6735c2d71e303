import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Observations of typed collections, and of default-codec rows decoded as a `Decodable` type.
@Suite(.timeLimit(.minutes(1))) struct TypedObservationTests {
    static let notes = CollectionHandle<ObservedNote>("notes")

    @Test(arguments: [false, true])
    func aTypedCollectionsRowIsObservedDecoded(registered: Bool) async throws {
        let test = try TestDatabase()
        if registered { try test.database.register(Self.notes) }
        let writer = try test.connection()
        let database = test.database
        try await writer.readWrite { tx in try tx.set(ObservedNote(title: "one"), forKey: "n1", in: Self.notes) }
        try await TestSupport.withTimeout {
            var values = database.observeObject(forKey: "n1", in: Self.notes).makeAsyncIterator()
            #expect(try await values.next() == ObservedNote(title: "one"))
            try await writer.readWrite { tx in try tx.set(ObservedNote(title: "two"), forKey: "n1", in: Self.notes) }
            #expect(try await values.next() == ObservedNote(title: "two"))
            var keys = database.observeKeys(in: Self.notes).makeAsyncIterator()
            #expect(try await keys.next() == ["n1"])
            try await writer.readWrite { tx in try tx.removeObject(forKey: "n1", in: Self.notes) }
            #expect(try await values.next() == .some(nil))
            #expect(try await keys.next() == [])
        }
    }

    @Test func theStringFormDecodesDefaultCodecRows() async throws {
        let test = try TestDatabase()
        try await test.connection().readWrite { tx in
            try tx.setObject(ObservedNote(title: "json"), forKey: "n1", inCollection: "notes")
        }
        let database = test.database
        try await TestSupport.withTimeout { () async throws in
            var values = database.observeObject(forKey: "n1", inCollection: "notes", as: ObservedNote.self)
                .makeAsyncIterator()
            #expect(try await values.next() == ObservedNote(title: "json"))
        }
    }

    @Test func aHandleForTheWrongTypeEndsTheObservationWithTypeMismatch() async throws {
        let test = try TestDatabase()
        test.database.registerCodable(String.self, forCollection: "notes")
        let database = test.database
        try await TestSupport.withTimeout { () async throws in
            var values = database.observeObject(forKey: "n1", in: Self.notes).makeAsyncIterator()
            let error = await #expect(throws: DatabaseError.self) { _ = try await values.next() }
            #expect(error?.code == .typeMismatch)
        }
    }
}
