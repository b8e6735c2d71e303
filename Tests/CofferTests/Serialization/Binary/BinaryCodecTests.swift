import Foundation
import Testing

@testable import Coffer

@Suite("Binary Codable codec")
struct BinaryCodecTests {
    @Test("The benchmark record round-trips, starts with C1 01 and is smaller than its JSON")
    func benchRecord() throws {
        let user = BenchUser(123)
        let bytes = try BinaryEncoder().encode(user)
        #expect(Array(bytes.prefix(2)) == [0xC1, 0x01])
        #expect(try BinaryDecoder().decode(BenchUser.self, from: bytes) == user)
        let json = try Serializer.canonicalJSONEncoder().encode(user)
        #expect(json.count == 251)
        #expect(bytes.count < json.count)
        #expect(try BinaryEncoder().encode(user) == bytes, "equal values give equal bytes")
    }

    @Test("Date, Data, URL, UUID, Decimal, nested containers, optionals and packed arrays round-trip")
    func kitchenSink() throws {
        let sample = Kitchen.sample
        #expect(try binaryRoundTrip(sample) == sample)
        #expect(try binaryRoundTrip([sample, sample]) == [sample, sample])
    }

    @Test("Special types use their own tags, and scalar arrays are packed")
    func tags() throws {
        func body(_ value: some Encodable) throws -> [UInt8] {
            // C1 01, an empty key table (a single value has no keys), then the value.
            let bytes = Array(try BinaryEncoder().encode(value))
            #expect(Array(bytes.prefix(3)) == [0xC1, 0x01, 0x00])
            return Array(bytes.dropFirst(3))
        }
        #expect(try body(Date(timeIntervalSinceReferenceDate: 0)) == [0x0A, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try body(Data([1, 2])) == [0x09, 2, 1, 2])
        #expect(try body([1, -1, 300]) == [0x10, 0x04, 3, 2, 1, 0xD8, 0x04])
        #expect(try body([true, false]) == [0x10, 0x02, 2, 1, 0])
        #expect(try body(["a", ""]) == [0x11, 2, 1, UInt8(ascii: "a"), 0])
        #expect(try body(1.5) == [0x07, 0x00, 0x00, 0xC0, 0x3F], "a Double a Float holds exactly takes 4 bytes")
        #expect(try body(0.1).first == 0x06)
        #expect(try body(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))) == [0x0C] + Array(1...16))
        #expect(try body(Optional<Int>.none) == [0x01])
        #expect(try body(Empty()) == [0x0F, 0x00], "an empty value is an empty keyed container, as JSON's {}")
    }

    @Test("Enums with associated values round-trip in every shape")
    func enums() throws {
        let cases: [Choice] = [
            .none, .single(-3), .pair(left: 1, right: "x"), .nested(.nested(nil)), .nested(.single(2)),
            .unlabeled("u", [1, 2]),
        ]
        for choice in cases { #expect(try binaryRoundTrip(choice) == choice) }
        #expect(try binaryRoundTrip(cases) == cases)
    }

    @Test("superEncoder and superDecoder carry a superclass's fields, in their own entry or a shared container")
    func superclasses() throws {
        let dog = try binaryRoundTrip(Dog(name: "Rex", legs: 3))
        #expect(dog.name == "Rex" && dog.legs == 3)
        let cat = try binaryRoundTrip(Cat(lives: 9, legs: 4))
        #expect(cat.lives == 9 && cat.legs == 4)
        // The JSON of the binary value shows the layout: the superclass under "super".
        let json = try BinaryDecoder.jsonRepresentation(of: try BinaryEncoder().encode(Dog(name: "Rex", legs: 3)))
        #expect(String(decoding: json, as: UTF8.self) == #"{"name":"Rex","super":{"legs":3}}"#)
    }

    @Test("Hand-written unkeyed and single-value containers round-trip")
    func handWrittenContainers() throws {
        #expect(try binaryRoundTrip(Point(x: -4, y: 2.5)) == Point(x: -4, y: 2.5))
        #expect(try binaryRoundTrip([Celsius(21.5), Celsius(-3)]) == [Celsius(21.5), Celsius(-3)])
        #expect(try binaryRoundTrip(Optional<Celsius>.none) == nil)
        #expect(try binaryRoundTrip("top-level string") == "top-level string")
        #expect(try binaryRoundTrip(Empty()) == Empty())
    }

    @Test("Extreme numbers round-trip exactly")
    func numbers() throws {
        let doubles: [Double] = [0, -0.0, .infinity, -.infinity, .ulpOfOne, .greatestFiniteMagnitude, 1e-310, 0.1]
        for value in doubles { #expect(try binaryRoundTrip(value).bitPattern == value.bitPattern) }
        #expect(try binaryRoundTrip(Double.nan).isNaN)
        #expect(try binaryRoundTrip([Int64.min, Int64.max]) == [Int64.min, Int64.max])
        #expect(try binaryRoundTrip(UInt64.max) == UInt64.max)
        #expect(try binaryRoundTrip(Int8.min) == Int8.min)
    }

    @Test("Integers decode into any integer type that holds them, and fail clearly when one does not")
    func integerConversions() throws {
        let stored = try BinaryEncoder().encode(300)
        #expect(try BinaryDecoder().decode(Int64.self, from: stored) == 300)
        #expect(try BinaryDecoder().decode(UInt16.self, from: stored) == 300)
        #expect(try BinaryDecoder().decode(Double.self, from: stored) == 300)
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode(UInt8.self, from: stored) }
        #expect(throws: DecodingError.self) {
            try BinaryDecoder().decode(UInt.self, from: try BinaryEncoder().encode(-1))
        }
        #expect(throws: DecodingError.self) { try BinaryDecoder().decode(String.self, from: stored) }
    }

    @Test("Writing to a container after its parent went on is refused, not silently misplaced")
    func interleavedContainers() throws {
        struct Interleaved: Encodable {
            enum Keys: String, CodingKey { case a, b, c }
            func encode(to encoder: any Encoder) throws {
                var outer = encoder.container(keyedBy: Keys.self)
                var inner = outer.nestedContainer(keyedBy: Keys.self, forKey: .a)
                try inner.encode(1, forKey: .b)
                try outer.encode(2, forKey: .c)
                try inner.encode(3, forKey: .c)
            }
        }
        #expect(throws: EncodingError.self) { try BinaryEncoder().encode(Interleaved()) }
    }

    @Test("Keys decoded out of order, and a struct decoded twice from one container, still find their values")
    func outOfOrderKeys() throws {
        struct Reversed: Decodable, Equatable {
            var values: [String]
            enum Keys: String, CodingKey { case id, name, email, age, score, tags, bio }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                values = [
                    try container.decode(String.self, forKey: .bio), try container.decode(String.self, forKey: .id),
                    try container.decode(String.self, forKey: .email), try container.decode(String.self, forKey: .id),
                ]
                #expect(container.allKeys.count == 7)
                #expect(container.contains(.age))
            }
        }
        let user = BenchUser(7)
        let decoded = try BinaryDecoder().decode(Reversed.self, from: try BinaryEncoder().encode(user))
        #expect(decoded.values == [user.bio, user.id, user.email, user.id])
    }

    @Test("userInfo reaches the types being coded")
    func userInfo() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        struct Probe: Codable {
            init() {}
            static func unit(_ info: [CodingUserInfoKey: Any]) -> String? {
                info.first { $0.key.rawValue == "unit" }?.value as? String
            }
            init(from decoder: any Decoder) throws { #expect(Self.unit(decoder.userInfo) == "m") }
            func encode(to encoder: any Encoder) throws {
                #expect(Self.unit(encoder.userInfo) == "m")
                var container = encoder.singleValueContainer()
                try container.encodeNil()
            }
        }
        var encoder = BinaryEncoder()
        encoder.userInfo[key] = "m"
        var decoder = BinaryDecoder()
        decoder.userInfo[key] = "m"
        _ = try decoder.decode(Probe.self, from: try encoder.encode(Probe()))
    }

    /// A NaN `Decimal` has no binary form (its text would not decode): encoding one is refused
    /// instead of writing bytes that cannot be read back.
    @Test("A NaN Decimal is refused with EncodingError.invalidValue")
    func nanDecimalIsNotEncoded() throws {
        struct Decimals: Codable { var amount: Decimal }
        #expect(throws: EncodingError.self) { try BinaryEncoder().encode(Decimals(amount: .nan)) }
        let one = try BinaryEncoder().encode(Decimals(amount: 1))
        #expect(try BinaryDecoder().decode(Decimals.self, from: one).amount == 1)
    }
}
