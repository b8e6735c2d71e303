import Crypto
public import Foundation

/// The on-disk form of a key file: a UTF-8 JSON document (see `KEYFILE-FORMAT.md`).
///
/// ```json
/// {
///   "checksum" : "<hex SHA-256 of the canonical encoding>",
///   "format" : "coffer.keyfile",
///   "keyID" : "<hex, 16 bytes>",
///   "slots" : [ {
///     "check" : "<base64, 32 bytes>", "ciphertext" : "<base64, 32 bytes>",
///     "kdf" : { "algorithm" : "scrypt", "n" : 32768, "p" : 1, "r" : 8 },
///     "label" : "primary", "nonce" : "<base64, 12 bytes>",
///     "salt" : "<base64, 16–64 bytes>", "tag" : "<base64, 16 bytes>"
///   } ],
///   "version" : 1
/// }
/// ```
///
/// The checksum and the AEAD associated data are computed over a canonical binary encoding of
/// the parsed fields, not over the JSON text, so whitespace and key order do not matter while
/// every value does.
extension KeyFile {
    /// The value of the `format` field, the file's magic.
    static let formatName = "coffer.keyfile"
    /// The magic that starts every canonical encoding.
    static let canonicalMagic = Array("COFFER-KEYFILE".utf8)
    /// The largest file accepted; real files are a few hundred bytes per slot.
    public static let maximumFileSize = 64 * 1024

    /// Parses and validates the bytes of a key file; no passphrase is needed and nothing is decrypted.
    ///
    /// - Throws: `damaged` for anything malformed (empty, too large, not JSON, wrong magic, bad
    ///   lengths, parameters or labels, duplicate labels, checksum mismatch); `unsupportedVersion`
    ///   for a version above ``formatVersion``.
    /// - Complexity: O(file size).
    public init(contents: some DataProtocol) throws(KeyFileError) {
        guard !contents.isEmpty else { throw Self.damaged("the file is empty") }
        guard contents.count <= Self.maximumFileSize else {
            throw Self.damaged("the file is larger than \(Self.maximumFileSize) bytes")
        }
        let data = Data(contents)
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(HeaderDocument.self, from: data) else {
            throw Self.damaged("the file is not a JSON key file document")
        }
        guard header.format == Self.formatName else { throw Self.damaged("bad magic: not a Coffer key file") }
        guard header.version <= Self.formatVersion else {
            throw KeyFileError(
                .unsupportedVersion,
                reason: "format version \(header.version) is newer than the supported \(Self.formatVersion)")
        }
        guard header.version == Self.formatVersion else { throw Self.damaged("bad format version") }
        let document: FileDocument
        do {
            document = try decoder.decode(FileDocument.self, from: data)
        } catch {
            throw Self.damaged("the document has missing or mistyped fields")
        }
        guard let keyID = Self.hexBytes(document.keyID), keyID.count == Self.keyIDLength else {
            throw Self.damaged("keyID must be \(Self.keyIDLength) bytes of hex")
        }
        guard (1...Self.maximumSlotCount).contains(document.slots.count) else {
            throw Self.damaged("a key file must hold 1 to \(Self.maximumSlotCount) slots")
        }
        var slots: [Slot] = []
        for (index, slotDocument) in document.slots.enumerated() {
            let slot = try slotDocument.validated(index: index)
            guard !slots.contains(where: { $0.label == slot.label }) else {
                throw Self.damaged("slot \(index): duplicate label")
            }
            slots.append(slot)
        }
        let parsed = KeyFile(keyID: keyID, slots: slots)
        guard let checksum = Self.hexBytes(document.checksum),
            Self.constantTimeEquals(checksum, parsed.checksum())
        else {
            throw Self.damaged("checksum mismatch")
        }
        self = parsed
    }

    /// The file's bytes: pretty-printed JSON with sorted keys, ending in a newline.
    ///
    /// - Throws: `cryptoFailure` only if JSON encoding fails, which does not happen for valid values.
    /// - Complexity: O(number of slots).
    public func encoded() throws(KeyFileError) -> Data {
        let document = FileDocument(
            format: Self.formatName, version: Self.formatVersion, keyID: Self.hex(keyID),
            slots: slots.map(SlotDocument.init), checksum: Self.hex(checksum()))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(document)
            data.append(0x0A)
            return data
        } catch {
            throw KeyFileError(.cryptoFailure, reason: "encoding the key file failed")
        }
    }

    /// SHA-256 over the canonical encoding of the whole file.
    func checksum() -> [UInt8] {
        var bytes = Self.canonicalHeader(keyID: keyID)
        bytes.appendUInt16(UInt16(truncatingIfNeeded: slots.count))
        for slot in slots {
            bytes.appendSlotMetadata(label: slot.label, parameters: slot.parameters, salt: slot.salt)
            for field in [slot.check, slot.nonce, slot.ciphertext, slot.tag] {
                bytes.appendPrefixed(field)
            }
        }
        return Array(SHA256.hash(data: bytes))
    }

    /// The AES-GCM associated data and passphrase-check input of one slot.
    static func associatedData(keyID: [UInt8], label: String, parameters: KDFParameters, salt: [UInt8]) -> [UInt8] {
        var bytes = canonicalHeader(keyID: keyID)
        bytes.appendSlotMetadata(label: label, parameters: parameters, salt: salt)
        return bytes
    }

    private static func canonicalHeader(keyID: [UInt8]) -> [UInt8] {
        var bytes = canonicalMagic
        bytes.appendUInt16(UInt16(formatVersion))
        bytes.appendPrefixed(keyID)
        return bytes
    }

    static func damaged(_ reason: String) -> KeyFileError {
        KeyFileError(.damaged, reason: reason)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes lowercase or uppercase hex; `nil` for odd lengths or other characters.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension [UInt8] {
    /// Appends `value` big-endian.
    fileprivate mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    /// Appends `value` big-endian.
    fileprivate mutating func appendUInt64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            append(UInt8((value >> UInt64(shift)) & 0xFF))
        }
    }

    /// Appends a 16-bit length, then the bytes: keeps the encoding unambiguous.
    fileprivate mutating func appendPrefixed(_ bytes: [UInt8]) {
        appendUInt16(UInt16(truncatingIfNeeded: bytes.count))
        append(contentsOf: bytes)
    }

    fileprivate mutating func appendSlotMetadata(label: String, parameters: KeyFile.KDFParameters, salt: [UInt8]) {
        appendPrefixed(Array(label.utf8))
        switch parameters {
        case .scrypt(let n, let r, let p):
            append(1)
            appendUInt64(UInt64(truncatingIfNeeded: n))
            appendUInt64(UInt64(truncatingIfNeeded: r))
            appendUInt64(UInt64(truncatingIfNeeded: p))
        case .pbkdf2SHA256(let iterations):
            append(2)
            appendUInt64(UInt64(truncatingIfNeeded: iterations))
        }
        appendPrefixed(salt)
    }
}
