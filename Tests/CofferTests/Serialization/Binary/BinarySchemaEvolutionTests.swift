import Foundation
import Testing

@testable import Coffer

/// What Codable users expect when a stored type changes, checked on binary rows.
@Suite("Binary codec schema evolution")
struct BinarySchemaEvolutionTests {
    struct Version1: Codable, Equatable {
        var id: Int
        var title: String
        var legacy: String
        var count: Int32
    }

    /// `legacy` removed, `subtitle` and `stars` added, `title` renamed in Swift but not on disk,
    /// `count` widened.
    struct Version2: Codable, Equatable {
        var id: Int
        var headline: String
        var subtitle: String?
        var stars: [Int]?
        var count: Int64

        enum CodingKeys: String, CodingKey {
            case id, subtitle, stars, count
            case headline = "title"
        }
    }

    static let old = Version1(id: 7, title: "Hello", legacy: "dropped", count: 42)

    @Test("Added optional fields decode as nil")
    func addedOptionalFields() throws {
        let new = try BinaryDecoder().decode(Version2.self, from: try BinaryEncoder().encode(Self.old))
        #expect(new.subtitle == nil)
        #expect(new.stars == nil)
    }

    @Test("Removed fields are ignored")
    func removedFields() throws {
        let new = try BinaryDecoder().decode(Version2.self, from: try BinaryEncoder().encode(Self.old))
        #expect(new == Version2(id: 7, headline: "Hello", subtitle: nil, stars: nil, count: 42))
    }

    @Test("A property renamed through CodingKeys keeps reading the stored key")
    func renamedKeys() throws {
        let new = try BinaryDecoder().decode(Version2.self, from: try BinaryEncoder().encode(Self.old))
        #expect(new.headline == "Hello")
        let written = try BinaryEncoder().encode(new)
        #expect(try BinaryDecoder().decode(Version2.self, from: written) == new)
        let json = String(decoding: try BinaryDecoder.jsonRepresentation(of: written), as: UTF8.self)
        #expect(json == #"{"count":42,"id":7,"title":"Hello"}"#)
    }

    @Test("A required field that is missing is keyNotFound, naming the key")
    func missingRequiredField() throws {
        struct Stricter: Codable { var id: Int; var owner: String }
        do {
            _ = try BinaryDecoder().decode(Stricter.self, from: try BinaryEncoder().encode(Self.old))
            Issue.record("decoding should fail")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "owner")
        }
    }

    @Test("Enum cases with associated values keep decoding when cases are added")
    func enumsGainCases() throws {
        enum Before: Codable { case circle(radius: Double), square(side: Double) }
        enum After: Codable, Equatable { case circle(radius: Double), square(side: Double), polygon(sides: Int) }
        let stored = try BinaryEncoder().encode([Before.circle(radius: 2), .square(side: 1.5)])
        #expect(try BinaryDecoder().decode([After].self, from: stored) == [.circle(radius: 2), .square(side: 1.5)])
    }

    @Test("A field that changes between a scalar array and another numeric type still decodes")
    func numericArraysWiden() throws {
        struct Ints: Codable { var values: [Int] }
        struct Doubles: Codable { var values: [Double] }
        struct Wide: Codable { var values: [Int64] }
        let stored = try BinaryEncoder().encode(Ints(values: [1, -2, 3]))
        #expect(try BinaryDecoder().decode(Doubles.self, from: stored).values == [1, -2, 3])
        #expect(try BinaryDecoder().decode(Wide.self, from: stored).values == [1, -2, 3])
    }

    @Test("Date, UUID and Decimal also read the forms JSON-shaped values give them")
    func specialTypesReadOtherForms() throws {
        struct AsNumbers: Codable { var when: Double; var amount: Int; var id: String }
        struct Typed: Codable { var when: Date; var amount: Decimal; var id: UUID }
        let uuid = UUID()
        let stored = try BinaryEncoder().encode(AsNumbers(when: 60, amount: 12, id: uuid.uuidString))
        let typed = try BinaryDecoder().decode(Typed.self, from: stored)
        #expect(typed.when == Date(timeIntervalSinceReferenceDate: 60))
        #expect(typed.amount == 12)
        #expect(typed.id == uuid)
    }
}
