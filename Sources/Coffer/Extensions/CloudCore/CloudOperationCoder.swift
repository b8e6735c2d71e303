import Foundation

/// Turns operations into the bytes of the queue table and back: JSON of the operation's fields
/// and payload, then the options' stages, bound to the extension and the operation's UUID.
struct CloudOperationCoder: Sendable {
    /// How one registered payload type is decoded.
    private typealias Decode = @Sendable (_ json: Data, _ decoder: JSONDecoder) throws -> CloudOperation

    private let decoders: [String: Decode]
    private let chain: SerializerChain

    init(options: CloudCoreOptions) {
        var decoders: [String: Decode] = [:]
        for type in options.operationTypes {
            decoders[type.operationType] = Self.decoder(for: type)
        }
        self.decoders = decoders
        self.chain = SerializerChain(codec: .data, stages: options.stages)
    }

    /// Whether operations of `type` can be decoded.
    func knows(_ type: String) -> Bool {
        decoders[type] != nil
    }

    /// The stored bytes of `operation`.
    /// - Throws: ``CloudCoreError`` `.unknownOperationType` for an unregistered payload type,
    ///   `.undecodableOperation` (with the cause) when encoding or a stage fails.
    func encode(_ operation: CloudOperation, registeredName: String, encoder: JSONEncoder) throws -> Data {
        guard knows(operation.operationType) else {
            throw CloudCoreError(
                .unknownOperationType,
                "cloud core \"\(registeredName)\": payload type \"\(operation.operationType)\" is not in the "
                    + "options' operationTypes", operation: operation.uuid, pipeline: operation.pipeline)
        }
        do {
            let json = try operation.payload.storedJSON(of: operation, encoder: encoder)
            return try chain.serialize(json, collection: Self.collection(registeredName), key: operation.uuid.uuidString)
        } catch {
            throw CloudCoreError(
                .undecodableOperation,
                "cloud core \"\(registeredName)\": operation \(operation.uuid) could not be encoded",
                operation: operation.uuid, pipeline: operation.pipeline, underlying: error)
        }
    }

    /// The operation stored as `blob` with payload type `type`.
    /// - Throws: ``CloudCoreError`` `.unknownOperationType` or `.undecodableOperation`.
    func decode(
        _ blob: Data, type: String, uuid: UUID, pipeline: String, graphID: UInt64, registeredName: String,
        decoder: JSONDecoder
    ) throws(CloudCoreError) -> CloudOperation {
        guard let decode = decoders[type] else {
            throw CloudCoreError(
                .unknownOperationType,
                "cloud core \"\(registeredName)\": queued operation \(uuid) has payload type \"\(type)\", which is "
                    + "not in the options' operationTypes; it stays queued until the type is registered or it is "
                    + "skipped", operation: uuid, pipeline: pipeline)
        }
        do {
            let json = try chain.deserialize(blob, collection: Self.collection(registeredName), key: uuid.uuidString)
            guard let json = json as? Data else {
                throw DatabaseError(.typeMismatch, "the queue's codec did not return bytes")
            }
            var operation = try decode(json, decoder)
            guard operation.uuid == uuid, operation.pipeline == pipeline else {
                throw DatabaseError(.corrupt, "the stored operation does not match its row")
            }
            operation.graphID = graphID
            return operation
        } catch {
            throw CloudCoreError(
                .undecodableOperation,
                "cloud core \"\(registeredName)\": queued operation \(uuid) of type \"\(type)\" could not be decoded",
                operation: uuid, pipeline: pipeline, underlying: error)
        }
    }

    /// The "collection" the stages bind the bytes to: the extension's name, apart from any row's.
    private static func collection(_ registeredName: String) -> String {
        "cloudCore:" + registeredName
    }

    private static func decoder<Payload: CloudOperationPayload>(for type: Payload.Type) -> Decode {
        { json, decoder in try decoder.decode(StoredOperation<Payload>.self, from: json).operation }
    }
}

extension CloudOperationPayload {
    /// The JSON of `operation`, whose payload this is, with the payload's concrete type.
    fileprivate func storedJSON(of operation: CloudOperation, encoder: JSONEncoder) throws -> Data {
        try encoder.encode(StoredOperation(operation, payload: self))
    }
}

/// The stored fields of an operation with a payload of a known type.
private struct StoredOperation<Payload: CloudOperationPayload>: Codable {
    var uuid: UUID
    var pipeline: String
    var dependencies: [UUID]
    var priority: Int32
    var holdDate: Date?
    var payload: Payload

    init(_ operation: CloudOperation, payload: Payload) {
        uuid = operation.uuid
        pipeline = operation.pipeline
        // Sorted, so the same operation always encodes to the same bytes.
        dependencies = operation.dependencies.sorted { $0.uuidString < $1.uuidString }
        priority = operation.priority
        holdDate = operation.holdDate
        self.payload = payload
    }

    var operation: CloudOperation {
        CloudOperation(
            payload, pipeline: pipeline, dependencies: Set(dependencies), priority: priority, holdDate: holdDate,
            uuid: uuid)
    }
}
