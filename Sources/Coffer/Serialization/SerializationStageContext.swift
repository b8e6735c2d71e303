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
        let collectionBytes = collection.utf8
        let keyBytes = key.utf8
        var data: [UInt8] = []
        data.reserveCapacity(
            18 + collectionBytes.count + keyBytes.count + precedingRecords.count + parameters.count)
        data.append(contentsOf: BlobHeader.magic)
        data.append(BlobHeader.currentVersion)
        data.append(role.rawValue)
        Self.appendLittleEndian(UInt32(truncatingIfNeeded: collectionBytes.count), to: &data)
        data.append(contentsOf: collectionBytes)
        Self.appendLittleEndian(UInt32(truncatingIfNeeded: keyBytes.count), to: &data)
        data.append(contentsOf: keyBytes)
        data.append(UInt8(truncatingIfNeeded: precedingCount))
        data.append(contentsOf: precedingRecords)
        data.append(stageID)
        data.append(UInt8(truncatingIfNeeded: parameters.count))
        data.append(contentsOf: parameters)
        return data
    }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
    }
}
