import Foundation
import Testing

@testable import Coffer

/// The benchmark's record, field for field.
struct BenchUser: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var email: String
    var age: Int
    var score: Double
    var tags: [String]
    var bio: String

    init(_ index: Int) {
        let number = String(repeating: "0", count: 6 - String(index).count) + String(index)
        id = "user-\(number)"
        name = "Person Number \(number)"
        email = "person.\(number)@example.com"
        age = 18 + index % 60
        score = Double(index % 1000) + 0.25
        tags = ["tag\(index % 10)", "group\(index % 100)", "tier\(index % 5)"]
        bio = "Bio of user-\(number): likes encrypted storage, long walks on the beach and deterministic benchmarks."
    }
}

/// Every type with a tag of its own, nested containers, optionals and packed arrays.
struct Kitchen: Codable, Sendable, Equatable {
    struct Inner: Codable, Sendable, Equatable {
        var label: String
        var weights: [Double]
        var child: [Inner]?
    }

    var date: Date
    var data: Data
    var url: URL
    var uuid: UUID
    var decimal: Decimal
    var ints: [Int]
    var int64s: [Int64]
    var bytes: [UInt8]
    var floats: [Float]
    var flags: [Bool]
    var small: Int8
    var big: UInt64
    var negative: Int32
    var optional: String?
    var missing: Int?
    var matrix: [[Int]]
    var dictionary: [String: Int]
    var intKeys: [Int: String]
    var inner: Inner
    var inners: [Inner]
    var nestedOptional: [String?]
    var choice: Choice

    static let sample = Kitchen(
        date: Date(timeIntervalSinceReferenceDate: 123_456.789), data: Data([0, 1, 2, 255]),
        url: URL(string: "https://example.com/a?b=c#d") ?? URL(fileURLWithPath: "/"),
        uuid: UUID(
            uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F)),
        decimal: Decimal(sign: .minus, exponent: -4, significand: 12_345_678), ints: [0, -1, 1, .max, .min],
        int64s: [7, -7], bytes: [0, 127, 128, 255], floats: [1.5, -0.25], flags: [true, false, true], small: -128,
        big: .max, negative: -5, optional: "here", missing: nil, matrix: [[1, 2], [], [3]],
        dictionary: ["a": 1, "b": 2], intKeys: [1: "one", 2: "two"],
        inner: Inner(label: "in", weights: [0.5], child: [Inner(label: "leaf", weights: [], child: nil)]),
        inners: [Inner(label: "x", weights: [1, 2, 3.3], child: nil)], nestedOptional: ["a", nil, "c"],
        choice: .pair(left: 1, right: "r"))
}

/// An enum with associated values of every synthesized shape.
enum Choice: Codable, Sendable, Equatable {
    case none
    case single(Int)
    case pair(left: Int, right: String)
    indirect case nested(Choice?)
    case unlabeled(String, [Int])
}

/// A class hierarchy coded through `superEncoder()` / `superDecoder()`.
class Animal: Codable, @unchecked Sendable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
}

final class Dog: Animal, @unchecked Sendable {
    var name: String

    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }

    private enum CodingKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

/// A subclass sharing its parent's keyed container (the other common superclass pattern).
final class Cat: Animal, @unchecked Sendable {
    var lives: Int

    init(lives: Int, legs: Int) {
        self.lives = lives
        super.init(legs: legs)
    }

    private enum CodingKeys: String, CodingKey { case lives }

    required init(from decoder: any Decoder) throws {
        lives = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lives)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lives, forKey: .lives)
        try super.encode(to: encoder)
    }
}

/// Hand-written unkeyed and single-value containers.
struct Point: Codable, Sendable, Equatable {
    var x: Int
    var y: Double

    init(x: Int, y: Double) {
        self.x = x
        self.y = y
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        #expect(container.count == 2)
        x = try container.decode(Int.self)
        y = try container.decode(Double.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
    }
}

/// A value stored as its raw single value.
struct Celsius: Codable, Sendable, Equatable {
    var degrees: Double

    init(_ degrees: Double) { self.degrees = degrees }

    init(from decoder: any Decoder) throws {
        degrees = try decoder.singleValueContainer().decode(Double.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(degrees)
    }
}

/// Nothing at all to encode.
struct Empty: Codable, Sendable, Equatable {}

/// Encodes `value` and decodes it back.
func binaryRoundTrip<T: Codable>(_ value: T) throws -> T {
    try BinaryDecoder().decode(T.self, from: try BinaryEncoder().encode(value))
}
