public import Foundation

/// The versioned header in front of every blob that went through at least one serialization
/// stage.
///
/// Byte layout (format version 1; all integers little-endian):
///
/// | Offset | Size | Field |
/// |-------:|-----:|-------|
/// | 0      | 4    | magic `C0 46 46 52` (`0xC0` never starts UTF-8 text, JSON or a property list) |
/// | 4      | 1    | format version, `1` |
/// | 5      | 1    | flags: bit 0 compressed, bit 1 encrypted; bits 2–7 must be zero |
/// | 6      | 1    | record count *n*, 0…8 |
/// | 7      | …    | *n* stage records, in the order the stages ran on write |
/// | …      | …    | payload: the output of the last stage that ran |
///
/// A stage record is `stage id (1) ‖ parameter length p (1) ‖ parameters (p)`. Coffer's stages
/// record: zlib (id 1) the uncompressed length as a `UInt32`; AES-256-GCM (id 2) and
/// ChaCha20-Poly1305 (id 3) the master key id as a `UInt32`. An encrypted payload is
/// `nonce (12) ‖ ciphertext ‖ tag (16)`.
///
/// Blobs written by a chain without stages carry no header, so YapDatabase-era data stays
/// readable. A header with zero records marks a blob that no stage changed but whose codec
/// bytes happen to begin with the magic. `BLOB-FORMAT.md` next to this file describes the
/// format in full.
public struct BlobHeader: Sendable, Equatable {
    /// The four bytes every headered blob starts with.
    public static let magic: [UInt8] = [0xC0, 0x46, 0x46, 0x52]
    /// ``magic``'s four bytes as one word in memory order, to compare and write them at once.
    private static let magicWord = magic.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    /// The format version this build writes and reads.
    public static let currentVersion: UInt8 = 1
    /// The most stage records a header may hold.
    public static let maxRecords = 8
    /// The size of the fixed part: magic, version, flags and record count.
    static let fixedSize = 7

    /// What the stages recorded in a header did to the payload.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw flag byte.
        public var rawValue: UInt8
        /// Creates flags from their byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// A compression stage ran.
        public static let compressed = Flags(rawValue: 1 << 0)
        /// An encryption stage ran.
        public static let encrypted = Flags(rawValue: 1 << 1)
        /// Every bit format version 1 defines.
        static let known: Flags = [.compressed, .encrypted]
    }

    /// One stage's entry in a header: which stage ran and what it needs to undo its work.
    public struct Record: Sendable, Equatable {
        /// The id of the stage that ran (see ``SerializationStage/stageID``).
        public let stageID: UInt8
        /// The stage's parameters, for example a key id.
        public let parameters: Data
        /// Where the record starts, counted from the start of the blob.
        let offset: Int
    }

    /// The blob's format version.
    public let version: UInt8
    /// What the recorded stages did.
    public let flags: Flags
    /// The stages that ran, in the order they ran on write.
    public let records: [Record]
    /// Where the payload starts, counted from the start of the blob.
    public let payloadOffset: Int

    /// Tells whether a blob starts with the header magic.
    ///
    /// - Complexity: O(1).
    public static func hasMagic(_ blob: Data) -> Bool {
        blob.withUnsafeBytes { hasMagic($0) }
    }

    private static func hasMagic(_ raw: UnsafeRawBufferPointer) -> Bool {
        raw.count >= 4 && raw.loadUnaligned(as: UInt32.self) == magicWord
    }

    /// Reads the header at the start of a blob without touching its payload.
    ///
    /// - Throws: ``SerializationError`` with code ``SerializationError/Code/badMagic`` when the
    ///   blob has no header, ``SerializationError/Code/unsupportedVersion`` for a version other
    ///   than ``currentVersion``, ``SerializationError/Code/truncated`` when the blob ends inside
    ///   the header, and ``SerializationError/Code/malformedHeader`` for reserved flag bits or
    ///   too many records.
    /// - Complexity: O(number of records).
    public init(parsing blob: Data) throws(SerializationError) {
        // One pass over the raw bytes: Data's per-byte subscript is slow on hot read paths.
        self = try blob.withUnsafeBytes { raw in
            Result { () throws(SerializationError) in try BlobHeader(raw: raw, blob: blob) }
        }.get()
    }

    private init(raw: UnsafeRawBufferPointer, blob: Data) throws(SerializationError) {
        guard Self.hasMagic(raw) else {
            throw SerializationError(
                .badMagic, stage: "header", reason: "blob does not start with Coffer's magic bytes")
        }
        guard raw.count >= Self.fixedSize else {
            throw SerializationError(.truncated, stage: "header", reason: "blob ends inside the fixed header")
        }
        version = raw[4]
        guard version == Self.currentVersion else {
            throw SerializationError(
                .unsupportedVersion, stage: "header", reason: "format version \(version) is not supported")
        }
        flags = Flags(rawValue: raw[5])
        guard Flags.known.isSuperset(of: flags) else {
            throw SerializationError(.malformedHeader, stage: "header", reason: "reserved flag bits are set")
        }
        let count = Int(raw[6])
        guard count <= Self.maxRecords else {
            throw SerializationError(
                .malformedHeader, stage: "header", reason: "\(count) stage records exceed the maximum")
        }
        var offset = Self.fixedSize
        var records: [Record] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            guard raw.count - offset >= 2 else {
                throw SerializationError(.truncated, stage: "header", reason: "blob ends inside a stage record")
            }
            let length = Int(raw[offset + 1])
            guard raw.count - offset - 2 >= length else {
                throw SerializationError(.truncated, stage: "header", reason: "blob ends inside stage parameters")
            }
            let parameterStart = blob.startIndex + offset + 2
            records.append(
                Record(
                    stageID: raw[offset], parameters: blob[parameterStart..<parameterStart + length], offset: offset))
            offset += 2 + length
        }
        self.records = records
        payloadOffset = offset
    }

    /// Appends one stage record to the encoded records of a header being built.
    ///
    /// A record is `stage id ‖ parameter length ‖ parameters`; the caller keeps `parameters`
    /// within 255 bytes.
    static func appendRecord(stageID: UInt8, parameters: Data, to records: inout Data) {
        assert(parameters.count <= Int(UInt8.max))
        records.append(stageID)
        records.append(UInt8(truncatingIfNeeded: parameters.count))
        records.append(contentsOf: parameters)
    }

    /// The payload that follows the header in `blob`.
    func payload(in blob: Data) -> Data {
        blob[(blob.startIndex + payloadOffset)...]
    }

    /// The raw bytes of the records that ran before record `index`, as stages bind them.
    func recordBytes(before index: Int, in blob: Data) -> Data {
        let end = index < records.count ? records[index].offset : payloadOffset
        return blob[(blob.startIndex + Self.fixedSize)..<(blob.startIndex + end)]
    }

    /// Builds a complete blob from its flags, encoded records and payload in one buffer.
    ///
    /// - Complexity: O(payload length): the payload is copied once.
    static func assemble(flags: Flags, recordCount: Int, records: some ContiguousBytes, payload: Data) -> Data {
        assemble(flags: flags, recordCount: recordCount, records: records, payloadCount: payload.count) { target in
            payload.withUnsafeBytes { target.copyMemory(from: $0) }
        }
    }

    /// Builds a complete blob whose `payloadCount` payload bytes `writePayload` writes in place.
    ///
    /// - Complexity: O(header) plus what `writePayload` does.
    static func assemble(
        flags: Flags, recordCount: Int, records: some ContiguousBytes, payloadCount: Int,
        _ writePayload: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> Data {
        assert(recordCount <= maxRecords)
        return try records.withUnsafeBytes { recordBytes in
            let payloadStart = fixedSize + recordBytes.count
            // This runs once per encrypted or compressed write.
            return try Data.writtenInPlace(count: payloadStart + payloadCount) { target in
                withUnsafeBytes(of: magicWord) { target.copyMemory(from: $0) }
                target[4] = currentVersion
                target[5] = flags.rawValue
                target[6] = UInt8(truncatingIfNeeded: recordCount)
                UnsafeMutableRawBufferPointer(rebasing: target[fixedSize..<payloadStart]).copyMemory(from: recordBytes)
                try writePayload(UnsafeMutableRawBufferPointer(rebasing: target[payloadStart...]))
            }
        }
    }
}
