import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Damaged and hostile bytes: never a crash, always a typed error, nothing allocated beyond the bound.
@Suite("Binary codec on hostile input")
struct BinaryHostileInputTests {
    /// The format error a decode failed with, or nil when it succeeded; any other error fails the test.
    static func formatError<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> BinaryFormatError.Code? {
        do {
            _ = try BinaryDecoder().decode(T.self, from: Data(bytes))
            return nil
        } catch DecodingError.dataCorrupted(let context) {
            guard let error = context.underlyingError as? BinaryFormatError else {
                Issue.record("dataCorrupted without a BinaryFormatError: \(context.debugDescription)")
                return nil
            }
            return error.code
        } catch {
            Issue.record("expected a format error, got \(error)")
            return nil
        }
    }

    @Test("Every truncation of a valid encoding fails with a DecodingError")
    func truncations() throws {
        for value in [try BinaryEncoder().encode(BenchUser(1)), try BinaryEncoder().encode(Kitchen.sample)] {
            for length in 0..<value.count {
                #expect(throws: DecodingError.self) {
                    try BinaryDecoder().decode(Kitchen.self, from: value.prefix(length))
                }
                #expect(throws: BinaryFormatError.self) {
                    try BinaryDecoder.jsonRepresentation(of: value.prefix(length))
                }
            }
        }
    }

    @Test("Headers, tags, varints, key references and text are checked")
    func malformedParts() {
        #expect(Self.formatError(Int.self, [0x7B, 0x7D]) == .badMagic)
        #expect(Self.formatError(Int.self, [0xC1, 0x02, 0x00, 0x04, 0x00]) == .unsupportedVersion)
        #expect(Self.formatError(Int.self, [0xC1, 0x01, 0x00, 0x44]) == .invalidTag)
        #expect(
            Self.formatError(Int.self, [0xC1, 0x01, 0x00, 0x04] + Array(repeating: 0xFF, count: 11)) == .invalidVarint)
        #expect(Self.formatError(Int.self, [0xC1, 0x01, 0x00, 0x04, 0x02, 0x00]) == .trailingBytes)
        #expect(Self.formatError(String.self, [0xC1, 0x01, 0x00, 0x08, 0x02, 0xC3, 0x28]) == .invalidUTF8)
        #expect(Self.formatError(String.self, [0xC1, 0x01, 0x01, 0x01, 0xFF, 0x0F, 0x00]) == .invalidUTF8, "a key")
        // A keyed container naming key 5 of a one-key table.
        struct OneKey: Decodable { var a: Int }
        #expect(
            Self.formatError(OneKey.self, [0xC1, 0x01, 0x01, 0x01, 0x61, 0x0F, 0x05, 0x01, 0x00])
                == .invalidKeyReference)
        #expect(Self.formatError(UUID.self, [0xC1, 0x01, 0x00, 0x0C, 1, 2, 3]) == .truncated)
        #expect(Self.formatError(Decimal.self, [0xC1, 0x01, 0x00, 0x0D, 0x01, UInt8(ascii: "x")]) == .invalidPayload)
        #expect(Self.formatError(URL.self, [0xC1, 0x01, 0x00, 0x0B, 0x00]) == .invalidPayload)
        #expect(Self.formatError([Bool].self, [0xC1, 0x01, 0x00, 0x10, 0x02, 0x01, 0x07]) == .invalidPayload)
    }

    @Test("Lengths and counts larger than the input fail before anything is allocated")
    func hugeLengths() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        #expect(Self.formatError(String.self, [0xC1, 0x01, 0x00, 0x08] + huge) == .truncated)
        #expect(Self.formatError(Data.self, [0xC1, 0x01, 0x00, 0x09] + huge) == .truncated)
        #expect(Self.formatError([Int].self, [0xC1, 0x01, 0x00, 0x10, 0x04] + huge) == .truncated)
        #expect(
            Self.formatError([Double].self, [0xC1, 0x01, 0x00, 0x10, 0x06, 0x02, 0, 0, 0, 0, 0, 0, 0, 0]) == .truncated)
        #expect(Self.formatError([String].self, [0xC1, 0x01, 0x00, 0x11] + huge) == .truncated)
        #expect(Self.formatError(Int.self, [0xC1, 0x01] + huge) == .truncated, "a key table")
        #expect(BinaryDecoder.allocationLimit(forInputOf: 100) == 32 * 100 + 4096)
    }

    @Test("Nesting deeper than 256 levels is refused without exhausting the stack")
    func deepNesting() throws {
        let depth = 100_000
        let bytes: [UInt8] =
            [0xC1, 0x01, 0x00] + Array(repeating: 0x0E, count: depth) + Array(repeating: 0x00, count: depth)
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode([[[[[[Int]]]]]].self, from: Data(bytes)) }
        #expect(throws: BinaryFormatError(.tooDeep, at: 259)) { try BinaryDecoder.jsonRepresentation(of: Data(bytes)) }
        // A recursive type reading the deep input ends at the limit instead of the stack's end.
        struct Nest: Decodable {
            var children: [Nest] = []
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                while !container.isAtEnd { children.append(try container.decode(Nest.self)) }
            }
        }
        #expect(Self.formatError(Nest.self, bytes) == .tooDeep)
    }

    @Test("Random bytes and random mutations of valid values never crash")
    func randomBytes() throws {
        var random = SeededGenerator(seed: 28)
        let valid = [
            Array(try BinaryEncoder().encode(Kitchen.sample)), Array(try BinaryEncoder().encode(BenchUser(5))),
        ]
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                bytes = valid[round % 4 / 2]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 2..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            } else {
                bytes =
                    [0xC1, 0x01]
                    + (0..<Int.random(in: 0...64, using: &random)).map { _ in
                        UInt8.random(in: 0...0x12, using: &random)
                    }
            }
            let data = Data(bytes)
            _ = try? BinaryDecoder().decode(Kitchen.self, from: data)
            _ = try? BinaryDecoder().decode(BenchUser.self, from: data)
            _ = try? BinaryDecoder().decode([Choice].self, from: data)
            if let json = try? BinaryDecoder.jsonRepresentation(of: data) {
                #expect((try? JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed)) != nil)
            }
        }
    }

    @Test("The codec's failures are SerializationErrors naming the problem, never the value")
    func serializerErrors() throws {
        let codec = Serializer.binary(BenchUser.self)
        var bytes = try codec.encode(BenchUser(3))
        bytes.removeLast(5)
        let error = try #require(serializationError { try codec.decode(bytes) })
        #expect(error.code == .codecFailed)
        #expect(error.stage == "binary")
        #expect(error.reason.contains("truncated"))
        #expect(!error.description.contains("Person Number"))
    }

    /// A `Decimal` decoded from a number or from Decimal's own keyed form is never NaN: the format
    /// has no NaN `Decimal`, so a decoded one would not encode and decode again (the fuzzer found
    /// a record whose `Decimal` came out NaN and whose encoding then did not decode).
    @Test("Numbers that would make a NaN Decimal are refused")
    func nanDecimals() throws {
        struct Doubles: Codable { var amount: Double }
        struct Decimals: Codable { var amount: Decimal }
        for double in [Double.nan, .infinity, -.infinity, 1e300] {
            let bytes = try BinaryEncoder().encode(Doubles(amount: double))
            #expect(Self.formatError(Decimals.self, [UInt8](bytes)) == .invalidPayload, "\(double)")
        }
        let half = try BinaryEncoder().encode(Doubles(amount: 12.5))
        #expect(try BinaryDecoder().decode(Decimals.self, from: half).amount == Decimal(string: "12.5"))
        // Decimal's keyed form, as its `init(from:)` reads it: NaN has length 0 and the sign set.
        struct KeyedDecimal: Codable {
            var exponent: Int32
            var length: UInt32
            var isNegative: Bool
            var isCompact: Bool
            var mantissa: [UInt16]
        }
        let five = KeyedDecimal(
            exponent: 0, length: 1, isNegative: false, isCompact: true, mantissa: [5, 0, 0, 0, 0, 0, 0, 0])
        #expect(try BinaryDecoder().decode(Decimal.self, from: BinaryEncoder().encode(five)) == 5)
        let nan = KeyedDecimal(
            exponent: 0, length: 0, isNegative: true, isCompact: false, mantissa: [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(Self.formatError(Decimal.self, [UInt8](try BinaryEncoder().encode(nan))) == .invalidPayload)
    }
}
