import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The object cache keeps each object boxed by its dynamic type: a typed read of exactly that
/// type reads it from the box, any other read goes through the object as it was cached.
@Suite struct CachedObjectTests {
    struct Note: Codable, Sendable, Equatable {
        var title: String
    }

    struct Other: Codable, Sendable, Equatable {
        var count: Int
    }

    class Animal: Codable, @unchecked Sendable {
        // Safety: immutable.
        let name: String
        init(name: String) { self.name = name }
    }

    final class Dog: Animal, @unchecked Sendable {}

    @Test func aBoxIsTypedByTheObjectsDynamicType() {
        let box = CachedObject.boxing(Note(title: "a") as any Sendable)
        #expect(box.value(ifExactly: Note.self) == Note(title: "a"))
        #expect(box.value(ifExactly: Other.self) == nil)
        #expect(box.value(ifExactly: Note?.self) == nil)
        #expect(box.object as? Note == Note(title: "a"))

        let optional: Note? = Note(title: "b")
        let optionalBox = CachedObject.boxing(optional as any Sendable)
        #expect(optionalBox.value(ifExactly: Note?.self) == .some(Note(title: "b")))
        #expect(optionalBox.value(ifExactly: Note.self) == nil)
    }

    @Test func aBoxKeepsTheInstanceAndOnlyItsOwnClassIsExact() {
        let dog = Dog(name: "rex")
        let box = CachedObject.boxing(dog as any Sendable)
        #expect(box.value(ifExactly: Dog.self) === dog)
        // A superclass is not the exact type: the caller casts `object`, the instance itself.
        #expect(box.value(ifExactly: Animal.self) == nil)
        #expect((box.object as? Animal) === dog)
    }

    @Test func cachingAnObjectBoxesItForTypedAndUntypedReads() {
        var cache = Cache<CollectionKey, CachedObject>(countLimit: 2)
        let ck = CollectionKey(collection: "c", key: "k")
        cache.setObject(Note(title: "n"), forKey: ck)
        #expect(cache.object(forKey: ck) as? Note == Note(title: "n"))
        #expect(cache.withValue(forKey: ck) { $0.value(ifExactly: Note.self) } == .some(Note(title: "n")))
        #expect(cache.statistics.hitCount == 2)
        #expect(cache.object(forKey: CollectionKey(collection: "", key: "k")) == nil)
        #expect(cache.statistics.missCount == 1)
    }

    @Test func typedReadsOfTheWritersOwnCacheCheckTheType() throws {
        let test = try TestDatabase()
        test.database.registerCodable(Note.self, forCollection: "notes")
        let connection = try test.connection()
        connection.objectCacheEnabled = true
        try connection.readWrite { tx in
            try tx.setObject(Note(title: "a"), forKey: "k", inCollection: "notes")
            // Untyped writes of another type, in the default collection, named as nil and as "".
            try tx.setObject(Other(count: 3), forKey: "k", inCollection: nil)
            try tx.setObject(Note(title: "d"), forKey: "e", inCollection: "")
        }
        let hitsBefore = connection.core.objectCache.statistics.hitCount
        try connection.read { tx throws in
            #expect(try tx.object(forKey: "k", inCollection: "notes", as: Note.self) == Note(title: "a"))
            let wrongType = #expect(throws: DatabaseError.self) {
                _ = try tx.object(forKey: "k", inCollection: "notes", as: Other.self)
            }
            #expect(wrongType?.code == .typeMismatch)
            #expect(wrongType?.collection == "notes" && wrongType?.key == "k")
            #expect(try tx.object(forKey: "k", inCollection: "notes") as? Note == Note(title: "a"))
            #expect(try tx.object(forKey: "k", inCollection: nil, as: Other.self) == Other(count: 3))
            #expect(try tx.object(forKey: "k", inCollection: "", as: Other.self) == Other(count: 3))
            #expect(try tx.object(forKey: "e", inCollection: nil, as: Note.self) == Note(title: "d"))
        }
        #expect(connection.core.objectCache.statistics.hitCount - hitsBefore == 6)
    }

    @Test func aTypedReadAsASuperclassGivesTheCachedInstance() throws {
        let test = try TestDatabase()
        test.database.registerCodable(Animal.self, forCollection: "animals")
        let connection = try test.connection()
        connection.objectCacheEnabled = true
        let dog = Dog(name: "rex")
        try connection.readWrite { tx in try tx.setObject(dog, forKey: "d", inCollection: "animals") }
        try connection.read { tx throws in
            let animal = try tx.object(forKey: "d", inCollection: "animals", as: Animal.self)
            #expect(animal === dog)
        }
    }
}
