import Foundation
import PropertyBased
import Testing

@testable import Coffer

@Suite("Blob header")
struct BlobHeaderTests {
    /// A compressed and encrypted blob of 4,000 repeated bytes, with its chain.
    static func sample(acceptsUnencryptedBlobs: Bool = true) throws -> (SerializerChain, Data) {
        let keyring = try makeKeyring(id: 0x0102_0304)
        let chain = SerializerChain(
            codec: .data, stages: [.zlib(), .aesGCM(keyring)], acceptsUnencryptedBlobs: acceptsUnencryptedBlobs)
        return (chain, try chain.serialize(Data(repeating: 0x41, count: 4000), collection: "c", key: "k"))
    }

    @Test("The header has the documented byte layout")
    func layout() throws {
        let (_, blob) = try Self.sample()
        let bytes = Array(blob)
        #expect(Array(bytes[0..<4]) == [0xC0, 0x46, 0x46, 0x52])  // magic
        #expect(bytes[4] == 1)  // format version
        #expect(bytes[5] == 0b11)  // compressed | encrypted
        #expect(bytes[6] == 2)  // two records
        #expect(Array(bytes[7..<13]) == [1, 4, 0xA0, 0x0F, 0, 0])  // zlib, length 4000
        #expect(Array(bytes[13..<19]) == [2, 4, 0x04, 0x03, 0x02, 0x01])  // AES-GCM, key id
        let header = try BlobHeader(parsing: blob)
        #expect(header.payloadOffset == 19)
        #expect(header.flags == [.compressed, .encrypted])
        #expect(header.records.map(\.stageID) == [ZlibStage.id, AESGCMStage.id])
        #expect(header.records[1].parameters == Data([0x04, 0x03, 0x02, 0x01]))
        #expect(blob.count > 19 + 28)
    }

    @Test("Parsing works on a slice of a larger buffer")
    func parsesSlices() throws {
        let (chain, blob) = try Self.sample()
        let padded = Data([9, 9, 9]) + blob + Data([9])
        let slice = padded[3..<(3 + blob.count)]
        #expect(try BlobHeader(parsing: slice) == BlobHeader(parsing: blob))
        #expect(try chain.deserialize(slice, collection: "c", key: "k") as? Data == Data(repeating: 0x41, count: 4000))
    }

    @Test("Parsing a blob without the magic is badMagic")
    func badMagic() {
        #expect(errorCode { try BlobHeader(parsing: Data("{\"a\":1}".utf8)) } == .badMagic)
        #expect(errorCode { try BlobHeader(parsing: Data()) } == .badMagic)
    }

    @Test("Every truncation of a blob is a typed error")
    func truncations() throws {
        let (chain, blob) = try Self.sample()
        for length in 4..<blob.count {
            let code = errorCode { try chain.deserialize(blob.prefix(length), collection: "c", key: "k") }
            if length < 19 {
                #expect(code == .truncated, "length \(length)")
            } else {
                #expect(code == .truncated || code == .authenticationFailed, "length \(length)")
            }
        }
    }

    @Test("Unknown versions, reserved flags, too many records and wrong flags are refused")
    func malformedHeaders() throws {
        let (chain, blob) = try Self.sample()
        func altered(_ offset: Int, _ value: UInt8) -> Data {
            var copy = blob
            copy[offset] = value
            return copy
        }
        let cases: [(Data, SerializationError.Code)] = [
            (altered(4, 2), .unsupportedVersion),
            (altered(4, 0), .unsupportedVersion),
            (altered(5, 0b111), .malformedHeader),
            (altered(5, 0b01), .malformedHeader),
            (altered(6, 9), .malformedHeader),
            (altered(7, 77), .unknownStage),
            (altered(8, 255), .truncated),
            (altered(8, 3), .unknownStage),
            (altered(14, 5), .malformedHeader),
        ]
        for (bytes, code) in cases {
            #expect(errorCode { try chain.deserialize(bytes, collection: "c", key: "k") } == code)
        }
    }

    @Test("A strict chain turns every single-byte change into an error")
    func everyByteIsProtected() async throws {
        let (chain, blob) = try Self.sample(acceptsUnencryptedBlobs: false)
        let input = zip(Gen.int(in: 0..<blob.count), Gen.uint8(in: 1...255))
        await propertyCheck(count: 300, input: input) { offset, delta in
            var tampered = blob
            tampered[offset] &+= delta
            #expect(errorCode { try chain.deserialize(tampered, collection: "c", key: "k") } != nil)
        }
    }

    @Test("Random bytes after the magic never crash a chain")
    func garbageAfterMagic() async throws {
        let (chain, _) = try Self.sample()
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...80)) { tail in
            let blob = Data(BlobHeader.magic + tail)
            #expect(errorCode { try chain.deserialize(blob, collection: "c", key: "k") } != nil)
        }
    }
}
