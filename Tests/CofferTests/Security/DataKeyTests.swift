import Foundation
import Testing

@testable import Coffer

@Suite("DataKey")
struct DataKeyTests {
    @Test func holdsExactlyThirtyTwoBytes() throws {
        let bytes: [UInt8] = Array(100..<132)
        let key = try DataKey(bytes: bytes)
        #expect(key.withUnsafeBytes { Array($0) } == bytes)
        #expect(try DataKey(bytes: Data(bytes)) == key)

        for wrongLength in [0, 16, 31, 33, 64] {
            expectKeyFileError(.invalidArgument) { try DataKey(bytes: [UInt8](repeating: 7, count: wrongLength)) }
        }
    }

    @Test func randomKeysDiffer() {
        let keys = (0..<8).map { _ in DataKey.random() }
        let distinct = Set(keys.map { key in key.withUnsafeBytes { Array($0) } })
        #expect(distinct.count == keys.count)
        #expect(keys[0] == keys[0])
        #expect(keys[0] != keys[1])
    }

    @Test func describesItselfWithoutItsBytes() throws {
        let key = try DataKey(bytes: [UInt8](repeating: 0xAB, count: 32))
        #expect(key.description == "DataKey(32 bytes)")
    }

    @Test func wipeSecretZeroesBuffers() {
        var bytes: [UInt8] = Array(1...40)
        wipeSecret(&bytes)
        #expect(bytes == [UInt8](repeating: 0, count: 40))
        var data = Data([1, 2, 3])
        wipeSecret(&data)
        #expect(data == Data([0, 0, 0]))
    }
}
