import Foundation
import PropertyBased
import Testing

@testable import Coffer

/// Random values round-trip through the binary codec, and its JSON rendering agrees with JSON.
@Suite("Binary codec properties")
struct BinaryPropertyTests {
    /// A record with a field of nearly every shape the codec handles.
    struct Random: Codable, Sendable, Equatable {
        var int: Int
        var int16: Int16
        var uint64: UInt64
        var double: Double
        var float: Float
        var text: String
        var optionalText: String?
        var tags: [String]
        var numbers: [Int]
        var weights: [Double]
        var flags: [Bool]
        var bytes: Data
        var when: Date
        var id: UUID
        var map: [String: Int]
        var children: [Child]
        var choice: Choice
    }

    struct Child: Codable, Sendable, Equatable {
        var name: String
        var value: Int?
    }

    static let text = Gen.character(in: "\u{0}"..."\u{D7FF}").string(of: 0...24)

    static let child = zip(text, Gen.int(in: -1000...1000).optional(valueRate: 0.5)).map { Child(name: $0, value: $1) }

    static let choice = zip(Gen.int(in: 0...3), Gen.int(in: -99...99), text).map { kind, number, text -> Choice in
        switch kind {
        case 0: .none
        case 1: .single(number)
        case 2: .pair(left: number, right: text)
        default: .unlabeled(text, [number, -number])
        }
    }

    static let random = zip(
        zip(Gen.int(), Gen.int16(), Gen.uint64(), Gen.double(in: -1e300...1e300), Gen.float(in: -1e30...1e30)),
        zip(text, text.optional(valueRate: 0.5), text.array(of: 0...5), Gen.int().array(of: 0...20)),
        zip(
            Gen.double(in: -1e6...1e6).array(of: 0...8), Gen.bool.array(of: 0...9),
            Gen.uint8().array(of: 0...40).map { Data($0) }, Gen.double(in: -1e9...1e9)),
        zip(
            Gen.uint8().array(of: 16), zip(text, Gen.int()).array(of: 0...4), child.array(of: 0...4), choice)
    ).map { scalars, texts, arrays, rest in
        let uuidBytes = rest.0
        let uuid = UUID(
            uuid: (
                uuidBytes[0], uuidBytes[1], uuidBytes[2], uuidBytes[3], uuidBytes[4], uuidBytes[5], uuidBytes[6],
                uuidBytes[7], uuidBytes[8], uuidBytes[9], uuidBytes[10], uuidBytes[11], uuidBytes[12], uuidBytes[13],
                uuidBytes[14], uuidBytes[15]
            ))
        return Random(
            int: scalars.0, int16: scalars.1, uint64: scalars.2, double: scalars.3, float: scalars.4, text: texts.0,
            optionalText: texts.1, tags: texts.2, numbers: texts.3, weights: arrays.0, flags: arrays.1, bytes: arrays.2,
            when: Date(timeIntervalSinceReferenceDate: arrays.3), id: uuid,
            map: Dictionary(rest.1, uniquingKeysWith: { first, _ in first }), children: rest.2, choice: rest.3)
    }

    @Test("Random values round-trip")
    func roundTrip() async {
        await propertyCheck(count: 300, input: Self.random) { value in
            let bytes = try BinaryEncoder().encode(value)
            #expect(try BinaryDecoder().decode(Random.self, from: bytes) == value)
        }
    }

    @Test("The encoding is never larger than the value's JSON, and its JSON rendering decodes to the same value")
    func sizeAndRendering() async {
        await propertyCheck(count: 200, input: Self.random) { value in
            let bytes = try BinaryEncoder().encode(value)
            let json = try Serializer.canonicalJSONEncoder().encode(value)
            #expect(bytes.count <= json.count)
            let rendered = try BinaryDecoder.jsonRepresentation(of: bytes)
            #expect(try JSONDecoder().decode(Random.self, from: rendered) == value)
        }
    }

    @Test("Every codec reads every format, so switching formats keeps old rows")
    func formatsReadEachOther() async {
        let writers: [Serializer] = [.codable(ChainNote.self), .binary(ChainNote.self), .propertyList(ChainNote.self)]
        await propertyCheck(count: 100, input: Generators.note) { note in
            for writer in writers {
                let stored = try writer.encode(note)
                for reader in writers { #expect(try reader.decode(stored) as? ChainNote == note) }
                #expect(try EncodedValue(data: stored).decode(as: ChainNote.self) == note)
            }
        }
    }
}
