import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `enumerateKeysAndSerializedObjects` and `withSerializedObject`: lend stored bytes, decode nothing, stop and
/// detect mutation.
@Suite struct SerializedEnumerationTests {
    @Test func withSerializedObjectLendsOneRowsStoredBytes() throws {
        let test = try TestDatabase()
        let codec = CountingCodec<Note>()
        test.database.registerObjectSerializer(codec.chain, forCollection: "notes")
        let connection = try test.connection()
        try connection.readWrite { tx in
            try tx.setObject(Note(title: "t", body: "b"), forKey: "n", inCollection: "notes")
        }
        let decodesBefore = codec.decodes.withLock { $0 }
        try connection.read { tx throws in
            var lent: [UInt8]?
            #expect(
                try tx.withSerializedObject(forKey: "n", inCollection: "notes") {
                    lent = $0.withUnsafeBytes { Array($0) }
                })
            #expect(lent == (try tx.serializedObject(forKey: "n", inCollection: "notes")).map { Array($0) })
            var called = false
            #expect(try !tx.withSerializedObject(forKey: "missing", inCollection: "notes") { _ in called = true })
            #expect(!called)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try tx.withSerializedObject(forKey: "n", inCollection: "notes") { _ in throw Stop() }
            }
            // The statement was reset and unbound: the row still reads.
            #expect(try tx.withSerializedObject(forKey: "n", inCollection: "notes") { _ in })
        }
        #expect(codec.decodes.withLock { $0 } == decodesBefore)
        let error = try #require(throws: DatabaseError.self) {
            var escaped: ReadTransaction?
            try connection.read { tx in escaped = tx }
            try escaped?.withSerializedObject(forKey: "n", inCollection: "notes") { _ in }
        }
        #expect(error.code == .misuse)
    }

    @Test func lendsTheStoredBytesOfEveryRowWithoutDecoding() throws {
        let test = try TestDatabase()
        let codec = CountingCodec<Note>()
        test.database.registerObjectSerializer(codec.chain, forCollection: "notes")
        test.database.registerData(forCollection: "raw")
        let connection = try test.connection()
        try connection.readWrite { tx in
            for index in 0..<5 {
                try tx.setObject(Note(title: "t\(index)", body: "b"), forKey: "n\(index)", inCollection: "notes")
            }
            try tx.setObject(Data([1, 2, 3]), forKey: "three", inCollection: "raw")
            try tx.setObject(Data(), forKey: "empty", inCollection: "raw")
            try tx.setObject(Data([9]), forKey: "elsewhere", inCollection: "other-raw")
        }
        let decodesBefore = codec.decodes.withLock { $0 }
        try connection.read { tx in
            var lent: [String: [UInt8]] = [:]
            try tx.enumerateKeysAndSerializedObjects(inCollection: "notes") { key, bytes, _ in
                lent[key] = bytes.withUnsafeBytes { Array($0) }
            }
            #expect(lent.count == 5)
            for index in 0..<5 {
                let stored = try #require(try tx.serializedObject(forKey: "n\(index)", inCollection: "notes"))
                #expect(lent["n\(index)"] == Array(stored))
            }
            var raw: [String: [UInt8]] = [:]
            try tx.enumerateKeysAndSerializedObjects(inCollection: "raw") { key, bytes, _ in
                raw[key] = bytes.withUnsafeBytes { Array($0) }
            }
            #expect(raw == ["three": [1, 2, 3], "empty": []])
        }
        #expect(codec.decodes.withLock { $0 } == decodesBefore)
    }

    @Test func stopEndsTheEnumeration() throws {
        let test = try TestDatabase()
        test.database.registerData(forCollection: "raw")
        let connection = try test.connection()
        try connection.readWrite { tx in
            for index in 0..<10 { try tx.setObject(Data([UInt8(index)]), forKey: "k\(index)", inCollection: "raw") }
        }
        let seen = try connection.read { tx in
            var seen = 0
            try tx.enumerateKeysAndSerializedObjects(inCollection: "raw") { _, _, stop in
                seen += 1
                stop = seen == 3
            }
            return seen
        }
        #expect(seen == 3)
    }

    @Test func writingInsideTheBodyWithoutStopThrows() throws {
        let test = try TestDatabase()
        test.database.registerData(forCollection: "raw")
        let connection = try test.connection()
        try connection.readWrite { tx in
            for index in 0..<3 { try tx.setObject(Data([UInt8(index)]), forKey: "k\(index)", inCollection: "raw") }
        }
        let error = try #require(throws: DatabaseError.self) {
            try connection.readWrite { tx in
                try tx.enumerateKeysAndSerializedObjects(inCollection: "raw") { key, _, _ in
                    try tx.removeObject(forKey: key, inCollection: "raw")
                }
            }
        }
        #expect(error.code == .mutationDuringEnumeration)
        #expect(try connection.read { tx in try tx.numberOfKeys(inCollection: "raw") } == 3)
    }
}
