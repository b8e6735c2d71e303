import Foundation
import Testing

@testable import Coffer

@Suite struct PreferenceValueTests {
    static let webURL = URL(string: "https://e.com/a?b=1#c") ?? URL(fileURLWithPath: "/")

    static let samples: [PreferenceValue] = [
        .bool(true), .bool(false), .int(.min), .int(.max), .int(0), .double(-0.0), .double(1e300),
        .double(.leastNonzeroMagnitude), .double(.infinity), .double(-.infinity), .float(0.1), .float(-.infinity),
        .float(3.4e38), .string(""), .string("é\n\"quoted\""), .data(Data()), .data(Data([0, 255])),
        .date(Date(timeIntervalSinceReferenceDate: 123.456_789_012_3)), .url(Self.webURL),
        .array([]), .array([.int(1), .string("x"), .array([.bool(true)])]),
        .dictionary([:]), .dictionary(["a": .dictionary(["b": .double(2.5)])]), .codable(Data("{\"x\":1}".utf8)),
    ]

    @Test(arguments: samples)
    func roundTripsThroughJSON(_ value: PreferenceValue) throws {
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(PreferenceValue.self, from: data)
        #expect(decoded == value)
        if case .double(let original) = value, case .double(let back) = decoded {
            #expect(original.sign == back.sign)
        }
    }

    @Test func nanRoundTrips() throws {
        for value in [PreferenceValue.double(.nan), .float(.nan)] {
            let decoded = try JSONDecoder().decode(PreferenceValue.self, from: JSONEncoder().encode(value))
            switch decoded {
            case .double(let number): #expect(number.isNaN)
            case .float(let number): #expect(number.isNaN)
            default: Issue.record("decoded \(decoded)")
            }
        }
    }

    @Test func encodingNamesTheType() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(PreferenceValue.int(42)), as: UTF8.self) == #"{"i":42}"#)
        #expect(String(decoding: try encoder.encode(PreferenceValue.string("a")), as: UTF8.self) == #"{"s":"a"}"#)
    }

    @Test func malformedJSONIsADecodingError() {
        for json in [#"{}"#, #"{"i":1,"s":"x"}"#, #"{"q":1}"#, #"{"i":"x"}"#, #"{"d":"huge"}"#, #"{"u":""}"#] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(PreferenceValue.self, from: Data(json.utf8))
            }
        }
    }

    @Test func convertsPropertyListValues() {
        #expect(PreferenceValue(propertyList: 5) == .int(5))
        #expect(PreferenceValue(propertyList: Int8(-5)) == .int(-5))
        #expect(PreferenceValue(propertyList: UInt64.max) == nil)
        #expect(PreferenceValue(propertyList: true) == .bool(true))
        #expect(PreferenceValue(propertyList: NSNumber(value: true)) == .bool(true))
        #expect(PreferenceValue(propertyList: NSNumber(value: 7)) == .int(7))
        #expect(PreferenceValue(propertyList: NSNumber(value: 2.5)) == .double(2.5))
        #expect(PreferenceValue(propertyList: NSNumber(value: Float(1.5))) == .float(1.5))
        #expect(PreferenceValue(propertyList: "s" as Substring) == .string("s"))
        #expect(PreferenceValue(propertyList: URL(fileURLWithPath: "/tmp/x")) == .string("/tmp/x"))
        #expect(PreferenceValue(propertyList: Self.webURL) == .url(Self.webURL))
        #expect(PreferenceValue(propertyList: ["a": [1, 2]]) == .dictionary(["a": .array([.int(1), .int(2)])]))
        #expect(PreferenceValue(propertyList: [Optional(1), nil] as [Int?]) == nil)
        #expect(PreferenceValue(propertyList: Optional<Int>.none as Any) == nil)
        #expect(PreferenceValue(propertyList: [1: "a"]) == nil)
        #expect(PreferenceValue(propertyList: NSObject()) == nil)
    }
}
