import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Collections without a registered codec (the automatic JSON codec): an untyped read gives the
/// same ``EncodedValue`` on the writing connection, on a sibling and after a flush, whatever the
/// object policy — the JSON bytes cannot tell a `Date` from a `Double`, so the value that was
/// passed in is never what a read returns.
@Suite struct AutomaticCodecConsistencyTests {
    private static let written = Date(timeIntervalSinceReferenceDate: 1_000)

    /// Every untyped read of the row, as its dynamic type and its value.
    private func reads(_ connection: Connection) throws -> [String] {
        try connection.read { tx throws in
            var seen: [String] = []
            func note(_ value: (any Sendable)?) {
                seen.append(value.map { "\(type(of: $0)) \($0 as? EncodedValue == nil ? "\($0)" : "")" } ?? "nil")
            }
            note(try tx.object(forKey: "k", inCollection: "texts"))
            note(try tx.metadata(forKey: "k", inCollection: "texts"))
            note(try tx.objectAndMetadata(forKey: "k", inCollection: "texts")?.object)
            try tx.enumerateKeysAndObjects(inCollection: "texts") { _, object, _ in note(object) }
            try tx.enumerateRows(inCollection: "texts") { _, object, metadata, _ in
                note(object)
                note(metadata)
            }
            try tx.enumerateObjects(forKeys: ["k"], inCollection: "texts") { _, object, _ in note(object) }
            try tx.enumerateMetadata(forKeys: ["k"], inCollection: "texts") { _, metadata, _ in note(metadata) }
            return seen
        }
    }

    @Test(arguments: [ObjectPolicy.containment, .share, .copy])
    func everyConnectionReadsTheSameType(policy: ObjectPolicy) throws {
        let test = try TestDatabase()
        test.database.setObjectPolicy(policy, forCollection: "texts")
        test.database.setMetadataPolicy(policy, forCollection: "texts")
        let writer = try test.connection()
        let sibling = try test.connection()
        // The sibling caches the row first, so the share and copy policies hand it the committed value.
        try writer.readWrite { tx in try tx.setObject("first", forKey: "k", inCollection: "texts") }
        _ = try reads(sibling)
        try writer.readWrite { tx throws in
            try tx.setObject("hello world", forKey: "k", inCollection: "texts", withMetadata: Self.written)
            // Inside the writing transaction too.
            #expect(try tx.object(forKey: "k", inCollection: "texts") is EncodedValue)
            #expect(try tx.metadata(forKey: "k", inCollection: "texts") is EncodedValue)
        }
        let expected = Array(repeating: "EncodedValue ", count: 8)
        #expect(try reads(writer) == expected)
        #expect(try reads(sibling) == expected)
        writer.flushMemory(.all)
        #expect(try reads(writer) == expected)
        // Replacing either part keeps the rule.
        try writer.readWrite { tx throws in
            try tx.replaceObject("again", forKey: "k", inCollection: "texts")
            try tx.replaceMetadata(Self.written, forKey: "k", inCollection: "texts")
        }
        #expect(try reads(writer) == expected)
        #expect(try reads(sibling) == expected)
        // Typed reads decode the bytes, and do not change what an untyped read gives afterwards.
        try writer.read { tx throws in
            #expect(try tx.object(forKey: "k", inCollection: "texts", as: String.self) == "again")
            #expect(try tx.metadata(forKey: "k", inCollection: "texts", as: Date.self) == Self.written)
        }
        #expect(try reads(writer) == expected)
    }

    @Test func theCachedValueIsTheStoredBytesNotThePassedValue() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        try writer.readWrite { tx throws in
            try tx.setObject(Self.written, forKey: "k", inCollection: "texts")
        }
        let cached = try writer.read { tx in try tx.object(forKey: "k", inCollection: "texts") as? EncodedValue }
        let stored = try writer.read { tx in try tx.serializedObject(forKey: "k", inCollection: "texts") }
        #expect(cached?.data == stored)
        // The JSON of a Date is a number: it decodes as either.
        try writer.read { tx throws in
            #expect(try tx.object(forKey: "k", inCollection: "texts", as: Date.self) == Self.written)
            #expect(try tx.object(forKey: "k", inCollection: "texts", as: Double.self) == 1_000)
        }
    }

    @Test func preSerializedWritesReadBackAsTheStoredBytes() throws {
        let test = try TestDatabase()
        let writer = try test.connection()
        let bytes = Data(#""raw""#.utf8)
        try writer.readWrite { tx throws in
            try tx.setObject(
                bytes, forKey: "k", inCollection: "texts", withMetadata: nil, serializedObject: bytes,
                serializedMetadata: nil)
        }
        let read = try writer.read { tx in try tx.object(forKey: "k", inCollection: "texts") }
        #expect(read as? EncodedValue == EncodedValue(data: bytes))
        #expect(try writer.read { tx in try tx.object(forKey: "k", inCollection: "texts", as: String.self) } == "raw")
    }
}
