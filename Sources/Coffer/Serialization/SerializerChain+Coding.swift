public import Foundation

extension SerializerChain {
    /// Turns an object into the bytes stored for `(collection, key)`.
    ///
    /// - Parameters:
    ///   - object: The value to store; it must be of the codec's type.
    ///   - collection: The row's collection; encryption binds it.
    ///   - key: The row's key; encryption binds it.
    /// - Returns: The codec's bytes, or a headered blob when a stage changed them.
    /// - Throws: ``SerializationError`` naming the row: ``SerializationError/Code/typeMismatch``
    ///   or ``SerializationError/Code/codecFailed`` from the codec, and the codes of each stage
    ///   (for example ``SerializationError/Code/noCurrentKey``).
    /// - Complexity: O(size of the value) per stage; the header and the last stage's output
    ///   are written into one buffer.
    public func serialize(_ object: any Sendable, collection: String, key: String) throws(SerializationError) -> Data {
        do throws(SerializationError) {
            if let configurationError { throw configurationError }
            let encoded = try codec.encode(object)
            guard !stages.isEmpty else { return encoded }
            return try applyStages(to: encoded, collection: collection, key: key)
        } catch {
            throw error.at(collection: collection, key: key)
        }
    }

    /// ``serialize(_:collection:key:)`` that also returns the codec's bytes, before any stage.
    func serializeKeepingCodecBytes(
        _ object: any Sendable, collection: String, key: String
    ) throws(SerializationError) -> (blob: Data, codecBytes: Data) {
        do throws(SerializationError) {
            if let configurationError { throw configurationError }
            let encoded = try codec.encode(object)
            guard !stages.isEmpty else { return (encoded, encoded) }
            return (try applyStages(to: encoded, collection: collection, key: key), encoded)
        } catch {
            throw error.at(collection: collection, key: key)
        }
    }

    /// Turns stored bytes back into an object; never modifies the stored row.
    ///
    /// - Parameters:
    ///   - data: The stored blob.
    ///   - collection: The row's collection, the same as on write.
    ///   - key: The row's key, the same as on write.
    /// - Returns: The decoded object.
    /// - Throws: ``SerializationError`` naming the row, with one of the codes
    ///   ``SerializationError/Code/unsupportedVersion``, ``SerializationError/Code/truncated``,
    ///   ``SerializationError/Code/malformedHeader``, ``SerializationError/Code/unknownStage``,
    ///   ``SerializationError/Code/unknownKeyID``,
    ///   ``SerializationError/Code/authenticationFailed``,
    ///   ``SerializationError/Code/inflateFailed``,
    ///   ``SerializationError/Code/decompressionLimitExceeded``,
    ///   ``SerializationError/Code/unencryptedBlob`` or ``SerializationError/Code/codecFailed``.
    /// - Complexity: O(size of the blob) per recorded stage.
    public func deserialize(_ data: Data, collection: String, key: String) throws(SerializationError) -> any Sendable {
        do throws(SerializationError) {
            if let configurationError { throw configurationError }
            guard !stages.isEmpty else { return try codec.decode(data) }
            return try codec.decode(try undoStages(of: data, collection: collection, key: key))
        } catch {
            throw error.at(collection: collection, key: key)
        }
    }

    private func applyStages(to encoded: Data, collection: String, key: String) throws(SerializationError) -> Data {
        var payload = encoded
        // Data keeps up to 14 bytes inline, so the records of one or two stages need no allocation.
        var records = Data()
        var count = 0
        var flags: BlobHeader.Flags = []
        for (index, stage) in stages.enumerated() {
            let context = SerializationStageContext(
                collection: collection, key: key, role: role, stageID: stage.stageID,
                precedingRecords: records, precedingCount: count)
            let output: SerializationStageOutput?
            do {
                if index == stages.count - 1, let blobWriter {
                    return try blobWriter.encodeBlob(
                        payload, context: context, flags: flags.union(stage.kind.flag), precedingCount: count,
                        precedingRecords: records)
                }
                output = try stage.encode(payload, context: context)
            } catch {
                throw Self.stageError(error, stage: stage)
            }
            guard let output else { continue }
            guard output.parameters.count <= Int(UInt8.max) else {
                throw SerializationError(
                    .invalidConfiguration, stage: stage.name, reason: "stage parameters exceed 255 bytes")
            }
            BlobHeader.appendRecord(stageID: stage.stageID, parameters: output.parameters, to: &records)
            payload = output.payload
            count += 1
            flags.formUnion(stage.kind.flag)
        }
        // A blob no stage changed stays header-less unless its bytes would pass for a header.
        if count == 0 && !BlobHeader.hasMagic(payload) { return payload }
        return BlobHeader.assemble(flags: flags, recordCount: count, records: records, payload: payload)
    }

    func undoStages(of data: Data, collection: String, key: String) throws(SerializationError) -> Data {
        guard BlobHeader.hasMagic(data) else {
            try checkUnencryptedAllowed()
            return data
        }
        let header = try BlobHeader(parsing: data)
        var flags: BlobHeader.Flags = []
        for record in header.records {
            flags.formUnion(try resolvedStage(record).kind.flag)
        }
        guard flags == header.flags else {
            throw SerializationError(.malformedHeader, stage: "header", reason: "flags disagree with the stage records")
        }
        if !flags.contains(.encrypted) { try checkUnencryptedAllowed() }
        var payload = header.payload(in: data)
        for index in header.records.indices.reversed() {
            let stage = try resolvedStage(header.records[index])
            let context = SerializationStageContext(
                collection: collection, key: key, role: role, stageID: stage.stageID,
                precedingRecords: header.recordBytes(before: index, in: data), precedingCount: index)
            do {
                payload = try stage.decode(payload, parameters: header.records[index].parameters, context: context)
            } catch {
                throw Self.stageError(error, stage: stage)
            }
        }
        return payload
    }

    /// The chain's stage that wrote `record` (a linear scan: chains hold a few stages).
    private func resolvedStage(_ record: BlobHeader.Record) throws(SerializationError) -> any SerializationStage {
        guard let stage = stage(withID: record.stageID) else {
            throw SerializationError(
                .unknownStage, stage: "header", reason: "no stage with id \(record.stageID) in this chain")
        }
        return stage
    }

    private func checkUnencryptedAllowed() throws(SerializationError) {
        guard acceptsUnencryptedBlobs || !encrypts else {
            throw SerializationError(.unencryptedBlob, stage: "chain", reason: "the chain requires encrypted blobs")
        }
    }

    /// Keeps a stage's own ``SerializationError``; wraps anything else without its text.
    private static func stageError(_ error: any Error, stage: any SerializationStage) -> SerializationError {
        if let error = error as? SerializationError { return error }
        return SerializationError(.stageFailed, stage: stage.name, reason: "stage threw \(type(of: error))")
    }
}
