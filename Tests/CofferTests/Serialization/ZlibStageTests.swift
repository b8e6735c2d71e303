import Foundation
import PropertyBased
import Testing

@testable import Coffer

@Suite("Zlib stage")
struct ZlibStageTests {
    /// A zlib stream of `megabytes` MiB of zeros, built in 1 MiB pieces so the test never
    /// holds the inflated data.
    static func zeroBomb(megabytes: Int) throws -> Data {
        let deflater = try ZlibDeflater.make(level: 9)
        let piece = Data(count: 1 << 20)
        var compressed = Data()
        for _ in 0..<megabytes {
            #expect(try deflater.compress(piece, finish: false, into: &compressed, limit: .max))
        }
        #expect(try deflater.compress(Data(), finish: true, into: &compressed, limit: .max))
        return compressed
    }

    /// A blob whose single zlib record claims `length` bytes, around `payload`.
    static func zlibBlob(length: UInt32, payload: Data) -> Data {
        var records: [UInt8] = [ZlibStage.id, 4]
        records.append(contentsOf: AEADFraming.parameters(for: length))
        return BlobHeader.assemble(flags: .compressed, recordCount: 1, records: records, payload: payload)
    }

    @Test("Short values are stored as they are")
    func belowThreshold() throws {
        let chain = SerializerChain(codec: .data, stages: [.zlib(threshold: 512)])
        let value = Data(repeating: 0, count: 511)
        #expect(try chain.serialize(value, collection: "c", key: "k") == value)
    }

    @Test("Compressible values shrink and record their length")
    func compresses() throws {
        let chain = SerializerChain(codec: .data, stages: [.zlib()])
        let value = Data(String(repeating: "coffer ", count: 500).utf8)
        let blob = try chain.serialize(value, collection: "c", key: "k")
        #expect(blob.count < value.count / 10)
        let header = try BlobHeader(parsing: blob)
        #expect(header.flags == .compressed)
        #expect(header.records.first?.parameters.littleEndianUInt32() == UInt32(value.count))
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == value)
    }

    @Test("Values that would not shrink are stored as they are")
    func incompressible() async {
        let chain = SerializerChain(codec: .data, stages: [.zlib(threshold: 0)])
        await propertyCheck(count: 50, input: Gen.uint8().array(of: 600...2000)) { bytes throws in
            // Random bytes do not compress; the stage declines and the blob is the value.
            let value = Data(bytes)
            let blob = try chain.serialize(value, collection: "c", key: "k")
            if !BlobHeader.hasMagic(value) { #expect(blob == value) }
            #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == value)
        }
    }

    @Test("Every level round-trips", arguments: [Int32(-1), 0, 1, 6, 9])
    func levels(level: Int32) async {
        let chain = SerializerChain(codec: .string, stages: [.zlib(threshold: 0, level: level)])
        await propertyCheck(count: 50, input: Generators.text, Gen.int(in: 1...200)) { text, repeats in
            let value = String(repeating: text, count: repeats)
            let blob = try chain.serialize(value, collection: "c", key: "k")
            #expect(try chain.deserialize(blob, collection: "c", key: "k") as? String == value)
        }
    }

    @Test("Large values stream through in several chunks")
    func largeValue() throws {
        let chain = SerializerChain(codec: .data, stages: [.zlib()])
        var generator = SystemRandomNumberGenerator()
        let words = (0..<64).map { _ in Data((0..<8).map { _ in UInt8.random(in: 97...122, using: &generator) }) }
        var value = Data()
        while value.count < 3 << 20 { value.append(words[Int.random(in: 0..<64, using: &generator)]) }
        let blob = try chain.serialize(value, collection: "c", key: "k")
        #expect(blob.count < value.count)
        #expect(try chain.deserialize(blob, collection: "c", key: "k") as? Data == value)
    }

    @Test("A zip bomb with an honest header is refused by the ceiling before inflating")
    func honestZipBomb() throws {
        let bomb = try Self.zeroBomb(megabytes: 100)
        #expect(bomb.count < 200_000)
        let blob = Self.zlibBlob(length: 100 << 20, payload: bomb)
        let chain = SerializerChain(codec: .data, stages: [.zlib()])
        let error = serializationError { try chain.deserialize(blob, collection: "c", key: "k") }
        #expect(error?.code == .decompressionLimitExceeded)
        #expect(error?.stage == "zlib")
    }

    @Test("A zip bomb that understates its length stops at the recorded length")
    func lyingZipBomb() throws {
        let bomb = try Self.zeroBomb(megabytes: 100)
        let chain = SerializerChain(codec: .data, stages: [.zlib()])
        let blob = Self.zlibBlob(length: 4096, payload: bomb)
        #expect(errorCode { try chain.deserialize(blob, collection: "c", key: "k") } == .inflateFailed)
        // The inflater itself stops at any limit it is given.
        let inflater = try ZlibInflater.make()
        #expect(errorCode { try inflater.decompress(bomb, limit: 1 << 20) } == .decompressionLimitExceeded)
    }

    @Test("The ceiling is configurable")
    func configuredCeiling() throws {
        let value = Data(count: 2 << 20)
        let blob = try SerializerChain(codec: .data, stages: [.zlib()]).serialize(value, collection: "c", key: "k")
        let tight = SerializerChain(codec: .data, stages: [.zlib(decompressionLimit: 1 << 20)])
        #expect(errorCode { try tight.deserialize(blob, collection: "c", key: "k") } == .decompressionLimitExceeded)
        let roomy = SerializerChain(codec: .data, stages: [.zlib(decompressionLimit: 2 << 20)])
        #expect(try roomy.deserialize(blob, collection: "c", key: "k") as? Data == value)
    }

    @Test("Corrupt, short, overlong and impossible zlib payloads are inflateFailed")
    func corruptPayloads() throws {
        let value = Data(String(repeating: "abcdefgh", count: 200).utf8)
        let stage = ZlibStage(threshold: 0)
        let context = SerializationStageContext(
            collection: "c", key: "k", role: .object, stageID: 1, precedingRecords: Data(), precedingCount: 0)
        let output = try #require(try stage.encode(value, context: context))
        let chain = SerializerChain(codec: .data, stages: [stage])
        let length = UInt32(value.count)
        var flipped = output.payload
        flipped[flipped.startIndex + 3] ^= 0xFF
        let cases: [(UInt32, Data, SerializationError.Code)] = [
            (length, Data("not zlib at all".utf8), .inflateFailed),
            (length, output.payload.dropLast(4), .inflateFailed),
            (length, output.payload + Data([0]), .inflateFailed),
            (length, flipped, .inflateFailed),
            (length + 1, output.payload, .inflateFailed),
            (length - 1, output.payload, .inflateFailed),
            (60_000_000, Data([0x78, 0x9C]), .inflateFailed),
        ]
        for (recorded, payload, code) in cases {
            let blob = Self.zlibBlob(length: recorded, payload: payload)
            #expect(errorCode { try chain.deserialize(blob, collection: "c", key: "k") } == code)
        }
        #expect(
            errorCode { try stage.decode(output.payload, parameters: Data([1, 2]), context: context) }
                == .malformedHeader)
    }

    @Test("An empty stream inflates to nothing")
    func emptyStream() throws {
        let deflater = try ZlibDeflater.make(level: 6)
        var compressed = Data()
        #expect(try deflater.compress(Data(), finish: true, into: &compressed, limit: 64))
        #expect(try ZlibInflater.make().decompress(compressed, limit: 0) == Data())
    }
}
