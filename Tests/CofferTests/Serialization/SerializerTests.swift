import Foundation
import PropertyBased
import Testing

@testable import Coffer

@Suite("Serializer codecs")
struct SerializerTests {
    @Test("JSON and property list codecs round-trip random values", arguments: CodecKind.allCases)
    func codableRoundTrip(kind: CodecKind) async throws {
        let codec = kind.serializer
        await propertyCheck(count: 200, input: Generators.note) { note in
            let decoded = try codec.decode(try codec.encode(note))
            #expect(decoded as? ChainNote == note)
        }
    }

    @Test("JSON output sorts keys, so equal values give equal bytes")
    func jsonIsCanonical() throws {
        let note = ChainNote(id: 7, title: "t", body: "b", tags: ["x"], score: 1.5)
        let bytes = try Serializer.codable(ChainNote.self).encode(note)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"body":"b","id":7,"score":1.5,"tags":["x"],"title":"t"}"#)
        #expect(try Serializer.codable(ChainNote.self).encode(note) == bytes)
    }

    @Test("A caller's JSON encoder is used as given")
    func customEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let bytes = try Serializer.codable(ChainNote.self, encoder: encoder).encode(
            ChainNote(id: 1, title: "", body: "", tags: [], score: nil))
        #expect(bytes.contains(UInt8(ascii: "\n")))
    }

    @Test("The property list codec writes binary property lists")
    func propertyListIsBinary() throws {
        let bytes = try Serializer.propertyList(ChainNote.self).encode(ChainNote(id: 1, title: "a", body: "", tags: [], score: 2))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
    }

    @Test("Data is stored unchanged")
    func dataIsIdentity() async {
        await propertyCheck(count: 100, input: Generators.bytes) { data throws in
            #expect(try Serializer.data.encode(data) == data)
            #expect(try Serializer.data.decode(data) as? Data == data)
        }
    }

    @Test("Strings round-trip as UTF-8, and invalid UTF-8 is a codec error")
    func strings() async throws {
        await propertyCheck(count: 100, input: Generators.text) { text throws in
            let bytes = try Serializer.string.encode(text)
            #expect(bytes == Data(text.utf8))
            #expect(try Serializer.string.decode(bytes) as? String == text)
        }
        #expect(errorCode { try Serializer.string.decode(Data([0xC3, 0x28])) } == .codecFailed)
    }

    @Test("Timestamps are YapDatabase's 8-byte little-endian double")
    func timestampLayout() throws {
        let bytes = try Serializer.timestamp.encode(Date(timeIntervalSinceReferenceDate: 1.5))
        #expect(Array(bytes) == [0, 0, 0, 0, 0, 0, 0xF8, 0x3F])
        let back = try Serializer.timestamp.decode(Data([0, 0, 0, 0, 0, 0, 0xF8, 0x3F]))
        #expect(back as? Date == Date(timeIntervalSinceReferenceDate: 1.5))
        #expect(errorCode { try Serializer.timestamp.decode(Data(count: 7)) } == .codecFailed)
        #expect(errorCode { try Serializer.timestamp.decode(Data(count: 9)) } == .codecFailed)
    }

    @Test("Timestamps round-trip bit for bit")
    func timestampRoundTrip() async {
        await propertyCheck(count: 200, input: Gen.double(in: -1e12...1e12)) { seconds throws in
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let back = try Serializer.timestamp.decode(try Serializer.timestamp.encode(date)) as? Date
            #expect(back?.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern)
        }
    }

    @Test("Every codec rejects objects of another type with typeMismatch")
    func typeMismatch() {
        let codecs: [Serializer] = [
            .codable(ChainNote.self), .propertyList(ChainNote.self), .data, .string, .timestamp,
            .custom(Int.self, name: "int", encode: { Data(String($0).utf8) }, decode: { _ in 0 }),
        ]
        for codec in codecs {
            #expect(errorCode { try codec.encode(UUID()) } == .typeMismatch, "\(codec.name)")
        }
    }

    @Test("A codec for a class encodes its subclasses' instances as the class; exact types encode as themselves")
    func subclassesAndExactTypes() throws {
        let codec = Serializer.codable(Shape.self)
        let plain = try codec.encode(Shape(sides: 3))
        let derived = try codec.encode(Square())
        #expect(String(decoding: plain, as: UTF8.self) == #"{"sides":3}"#)
        #expect(String(decoding: derived, as: UTF8.self) == #"{"sides":4}"#)
        #expect((try codec.decode(derived) as? Shape)?.sides == 4)
        let sendableShape: any Sendable = Square()
        #expect(try codec.encode(sendableShape) == derived)
        let custom = Serializer.custom(
            Shape.self, name: "sides", encode: { Data([UInt8($0.sides)]) }, decode: { Shape(sides: Int($0[0])) })
        #expect(try custom.encode(Square()) == Data([4]))
        #expect(errorCode { try custom.encode(3) } == .typeMismatch)
    }

    @Test("Codec failures are codecFailed and do not quote the value")
    func codecFailuresHideValues() throws {
        let secret = "hunter2-secret-value"
        let json = Data(#"{"id":"\#(secret)","title":"","body":"","tags":[]}"#.utf8)
        do {
            _ = try Serializer.codable(ChainNote.self).decode(json)
            Issue.record("decoding a string id should fail")
        } catch {
            #expect(error.code == .codecFailed)
            #expect(!error.description.contains(secret))
        }
        let notANumber = ChainNote(id: 1, title: "", body: "", tags: [], score: .nan)
        #expect(errorCode { try Serializer.codable(ChainNote.self).encode(notANumber) } == .codecFailed)
        #expect(errorCode { try Serializer.propertyList(ChainNote.self).decode(Data("garbage".utf8)) } == .codecFailed)
    }

    @Test("Custom codecs check the type and wrap foreign errors")
    func customCodec() throws {
        struct Boom: Error {}
        let codec = Serializer.custom(
            Int.self, name: "int",
            encode: { Data(String($0).utf8) },
            decode: { data in
                guard let value = Int(String(decoding: data, as: UTF8.self)) else { throw Boom() }
                return value
            })
        #expect(try codec.decode(try codec.encode(42)) as? Int == 42)
        #expect(errorCode { try codec.decode(Data("x".utf8)) } == .codecFailed)
    }
}

/// A `Codable` class whose subclass is encoded through a codec for the class.
private class Shape: Codable, @unchecked Sendable {
    let sides: Int
    init(sides: Int) { self.sides = sides }
}

/// A subclass of ``Shape``; `@unchecked` as its only stored state is the superclass's constant.
private final class Square: Shape, @unchecked Sendable {
    init() { super.init(sides: 4) }
    required init(from decoder: any Decoder) throws { try super.init(from: decoder) }
}
