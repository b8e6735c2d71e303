public import Foundation

/// The row a stage is encoding or decoding, and what ran before it in the blob.
///
/// Encryption stages call ``associatedData(parameters:)`` so that a blob only authenticates
/// in the row, column and stage position it was written for.
public struct SerializationStageContext: Sendable {
    /// The collection of the row.
    public let collection: String
    /// The key of the row.
    public let key: String
    /// Whether the blob is the row's object or its metadata.
    public let role: SerializerChain.Role
    /// The id of the stage this context is given to.
    public let stageID: UInt8
    /// The header records of the stages that ran before this one on write.
    let precedingRecords: Data
    /// How many records `precedingRecords` holds.
    let precedingCount: Int

    /// Creates the context a chain gives a stage that runs first (no stage ran before it), so a
    /// custom stage can be called in a test exactly as a chain would call it.
    ///
    /// ```swift
    /// let context = SerializationStageContext(collection: "notes", key: "n1", stageID: 200)
    /// let output = try XORStage().encode(Data("hello".utf8), context: context)
    /// ```
    ///
    /// A chain builds a context of its own for every stage call; a stage placed after others
    /// gets their header records too, which changes its ``associatedData(parameters:)``.
    ///
    /// - Parameters:
    ///   - collection: The collection of the row.
    ///   - key: The key of the row.
    ///   - role: Whether the blob is the row's object (the default) or its metadata.
    ///   - stageID: The ``SerializationStage/stageID`` of the stage the context is for.
    public init(collection: String, key: String, role: SerializerChain.Role = .object, stageID: UInt8) {
        self.init(
            collection: collection, key: key, role: role, stageID: stageID, precedingRecords: Data(),
            precedingCount: 0)
    }

    /// Creates a context; the chain makes one per stage call.
    init(
        collection: String, key: String, role: SerializerChain.Role, stageID: UInt8,
        precedingRecords: Data, precedingCount: Int
    ) {
        self.collection = collection
        self.key = key
        self.role = role
        self.stageID = stageID
        self.precedingRecords = precedingRecords
        self.precedingCount = precedingCount
    }

    /// The bytes an AEAD stage authenticates besides its payload.
    ///
    /// The encoding is unambiguous — every variable-length part is length-prefixed:
    ///
    /// ```
    /// magic (4) ‖ format version (1) ‖ role (1)
    /// ‖ UInt32 LE collection length ‖ collection UTF-8
    /// ‖ UInt32 LE key length ‖ key UTF-8
    /// ‖ preceding record count (1) ‖ preceding records
    /// ‖ stage id (1) ‖ parameter length (1) ‖ parameters
    /// ```
    ///
    /// so a blob moved to another row, swapped between object and metadata, stripped of an
    /// earlier stage's record, or given another key id fails authentication.
    ///
    /// - Parameter parameters: The parameters the stage records in the header (at most 255
    ///   bytes).
    /// - Complexity: O(length of collection, key and records).
    public func associatedData(parameters: Data) -> [UInt8] {
        withAssociatedData(parameters: parameters) { Array($0) }
    }

    /// Runs `body` with ``associatedData(parameters:)``'s bytes in a temporary buffer, so the
    /// built-in AEAD stages bind a row without allocating.
    func withAssociatedData<R>(parameters: Data, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var collection = collection
        var key = key
        return try collection.withUTF8 { collectionBytes in
            try key.withUTF8 { keyBytes in
                let count = 17 + collectionBytes.count + keyBytes.count + precedingRecords.count + parameters.count
                return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
                    var writer = ByteWriter(buffer)
                    writer.append(BlobHeader.magic)
                    writer.append(BlobHeader.currentVersion)
                    writer.append(role.rawValue)
                    writer.appendLittleEndian(UInt32(truncatingIfNeeded: collectionBytes.count))
                    writer.append(UnsafeRawBufferPointer(collectionBytes))
                    writer.appendLittleEndian(UInt32(truncatingIfNeeded: keyBytes.count))
                    writer.append(UnsafeRawBufferPointer(keyBytes))
                    writer.append(UInt8(truncatingIfNeeded: precedingCount))
                    precedingRecords.withUnsafeBytes { writer.append($0) }
                    writer.append(stageID)
                    writer.append(UInt8(truncatingIfNeeded: parameters.count))
                    parameters.withUnsafeBytes { writer.append($0) }
                    assert(writer.offset == count)
                    return try body(UnsafeRawBufferPointer(rebasing: buffer[..<writer.offset]))
                }
            }
        }
    }
}

/// Writes bytes one after another into a buffer sized for them in advance.
private struct ByteWriter {
    let buffer: UnsafeMutableRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    mutating func append(_ byte: UInt8) {
        buffer[offset] = byte
        offset += 1
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
        offset += bytes.count
    }

    mutating func appendLittleEndian(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { append($0) }
    }
}
