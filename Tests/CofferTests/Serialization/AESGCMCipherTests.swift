import Crypto
import Foundation
import PropertyBased
import Testing

@testable import Coffer

#if canImport(CofferCipher)
    import CofferCipher
#endif

/// The AES-256-GCM backend the stage uses (libcrypto on Linux) against swift-crypto and a
/// published test vector: the bytes must be interchangeable, so blobs written on one platform
/// open on the other.
@Suite("AES-256-GCM backend")
struct AESGCMCipherTests {
    /// Test case 16 of McGrew and Viega's GCM specification (AES-256, 60-byte plaintext,
    /// 20 bytes of associated data).
    static let vectorKey = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    static let vectorNonce = hex("cafebabefacedbaddecaf888")
    static let vectorPlaintext = hex(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
            + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
    static let vectorAssociatedData = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    static let vectorCiphertext = hex(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
            + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662")
    static let vectorTag = hex("76fc6ece0f4e1768cddf8853bb2d551b")

    @Test("The published test vector seals and opens")
    func publishedVector() throws {
        let key = SymmetricKey(data: Self.vectorKey)
        let sealed = try seal(Self.vectorPlaintext, nonce: Self.vectorNonce, key: key, Self.vectorAssociatedData)
        #expect(sealed == Self.vectorNonce + Self.vectorCiphertext + Self.vectorTag)
        #expect(try open(sealed, key: key, Self.vectorAssociatedData) == Self.vectorPlaintext)
    }

    @Test("What one implementation seals, the other opens")
    func interchangeableWithSwiftCrypto() async throws {
        let input = zip(
            Gen.uint8().array(of: 0...2_000).map { Data($0) }, Gen.uint8().array(of: 0...80).map { Data($0) })
        await propertyCheck(count: 150, input: input) { plaintext, associatedData throws in
            let key = SymmetricKey(size: .bits256)
            let nonce = AES.GCM.Nonce()
            let ours = try seal(plaintext, nonce: Data(nonce), key: key, associatedData)
            let theirs = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: associatedData)
            #expect(ours == theirs.combined)
            #expect(
                try AES.GCM.open(AES.GCM.SealedBox(combined: ours), using: key, authenticating: associatedData)
                    == plaintext)
            #expect(try open(try #require(theirs.combined), key: key, associatedData) == plaintext)
        }
    }

    @Test("A changed byte, key or associated data does not open")
    func tampering() async throws {
        let key = SymmetricKey(size: .bits256)
        let associatedData = Data("notes/n1".utf8)
        let sealed = try seal(Data(repeating: 0x61, count: 90), nonce: Data(AES.GCM.Nonce()), key: key, associatedData)
        await propertyCheck(count: 100, input: zip(Gen.int(in: 0..<sealed.count), Gen.uint8(in: 1...255))) {
            offset, delta in
            var tampered = sealed
            tampered[offset] &+= delta
            #expect(throws: (any Error).self) { try open(tampered, key: key, associatedData) }
        }
        #expect(throws: (any Error).self) { try open(sealed, key: SymmetricKey(size: .bits256), associatedData) }
        #expect(throws: (any Error).self) { try open(sealed, key: key, Data("notes/n2".utf8)) }
    }

    #if canImport(CofferCipher)
        @Test("libcrypto's wrapper rejects wrong sizes and wipes the output of a failed open")
        func libcryptoWrapperContract() throws {
            let key = Data(repeating: 7, count: 32)
            let nonce = Data(repeating: 9, count: 12)
            let plaintext = Data(repeating: 0x41, count: 64)
            #expect(throws: AES256GCM.Failure.invalidArgument) {
                try wrapperSeal(plaintext, key: key.prefix(16), nonce: nonce)
            }
            #expect(throws: AES256GCM.Failure.invalidArgument) {
                try wrapperSeal(plaintext, key: key, nonce: nonce.prefix(8))
            }
            var (ciphertext, tag) = try wrapperSeal(plaintext, key: key, nonce: nonce)
            #expect(try wrapperOpen(ciphertext, tag: tag, key: key, nonce: nonce).output == plaintext)
            tag[tag.startIndex] ^= 1
            let failed = try wrapperOpen(ciphertext, tag: tag, key: key, nonce: nonce)
            #expect(failed.error == .authenticationFailed)
            #expect(failed.output == Data(count: 64))
            ciphertext[ciphertext.startIndex] ^= 1
            #expect(try wrapperOpen(ciphertext, tag: tag, key: key, nonce: nonce).error == .authenticationFailed)
        }

        private func wrapperSeal(_ plaintext: Data, key: Data, nonce: Data) throws -> (Data, Data) {
            var ciphertext = Data(count: plaintext.count)
            var tag = Data(count: AES256GCM.tagSize)
            try key.withUnsafeBytes { key in
                try nonce.withUnsafeBytes { nonce in
                    try plaintext.withUnsafeBytes { plaintext in
                        try ciphertext.withUnsafeMutableBytes { ciphertext in
                            try tag.withUnsafeMutableBytes { tag in
                                try AES256GCM.seal(
                                    key: key, nonce: nonce, plaintext: plaintext,
                                    associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                                    ciphertext: ciphertext, tag: tag)
                            }
                        }
                    }
                }
            }
            return (ciphertext, tag)
        }

        /// Opens with an output buffer pre-filled with 0xEE, returning it and the failure, if any.
        private func wrapperOpen(
            _ ciphertext: Data, tag: Data, key: Data, nonce: Data
        ) throws -> (output: Data, error: AES256GCM.Failure?) {
            var output = Data(repeating: 0xEE, count: ciphertext.count)
            var failure: AES256GCM.Failure?
            key.withUnsafeBytes { key in
                nonce.withUnsafeBytes { nonce in
                    ciphertext.withUnsafeBytes { ciphertext in
                        tag.withUnsafeBytes { tag in
                            output.withUnsafeMutableBytes { output in
                                do throws(AES256GCM.Failure) {
                                    try AES256GCM.open(
                                        key: key, nonce: nonce, ciphertext: ciphertext, tag: tag,
                                        associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                                        plaintext: output)
                                } catch {
                                    failure = error
                                }
                            }
                        }
                    }
                }
            }
            return (output, failure)
        }
    #endif

    private func seal(_ plaintext: Data, nonce: Data, key: SymmetricKey, _ associatedData: Data) throws -> Data {
        try plaintext.withUnsafeBytes { plaintext in
            try nonce.withUnsafeBytes { nonce in
                try associatedData.withUnsafeBytes {
                    try AESGCMCipher.seal(plaintext, nonce: nonce, key: key, authenticating: $0)
                }
            }
        }
    }

    private func open(_ combined: Data, key: SymmetricKey, _ associatedData: Data) throws -> Data {
        try associatedData.withUnsafeBytes { try AESGCMCipher.open(combined, key: key, authenticating: $0) }
    }
}

/// Bytes from a hexadecimal string of known-good literals.
private func hex(_ text: String) -> Data {
    var bytes = Data()
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
