import Foundation

/// Turns operations into the bytes of the queue table and back.
///
/// The bytes are a small binary envelope — format byte, priority, hold date, dependencies — then
/// the payload in the options' ``CloudCoreOptions/payloadFormat`` (any of the three is read back),
/// then the options' stages. The UUID, pipeline and payload type are the row's
/// own columns; the stages bind the bytes to the UUID and pipeline, so encrypted bytes copied to
/// another operation (or moved to another pipeline) fail to decode. Without stages the envelope is
/// stored as it is.
struct CloudOperationCoder: Sendable {
    /// How one registered payload type is decoded from its bytes.
    private typealias Decode = @Sendable (_ bytes: Data, _ reader: CodableReader) throws -> any CloudOperationPayload

    /// The envelope's format.
    static let format: UInt8 = 1

    private let decoders: [String: Decode]
    private let chain: SerializerChain?
    private let writer: CodableWriter
    private let reader = CodableReader(json: JSONDecoder())

    init(options: CloudCoreOptions) {
        var decoders: [String: Decode] = [:]
        for type in options.operationTypes {
            decoders[type.operationType] = Self.decoder(for: type)
        }
        self.decoders = decoders
        self.writer = CodableWriter(format: options.payloadFormat)
        self.chain = options.stages.isEmpty ? nil : SerializerChain(codec: .data, stages: options.stages)
    }

    /// Whether operations of `type` can be decoded.
    func knows(_ type: String) -> Bool {
        decoders[type] != nil
    }

    /// The stored bytes of `operation`.
    /// - Throws: ``CloudCoreError`` `.unknownOperationType` for an unregistered payload type,
    ///   `.undecodableOperation` (with the cause) when encoding or a stage fails.
    func encode(_ operation: CloudOperation, registeredName: String) throws -> Data {
        guard knows(operation.operationType) else {
            throw CloudCoreError(
                .unknownOperationType,
                "cloud core \"\(registeredName)\": payload type \"\(operation.operationType)\" is not in the "
                    + "options' operationTypes", operation: operation.uuid, pipeline: operation.pipeline)
        }
        do {
            var bytes = Self.envelope(of: operation)
            bytes.append(try operation.payload.encoded(with: writer))
            guard let chain else { return bytes }
            return try chain.serialize(
                bytes, collection: Self.collection(registeredName), key: Self.key(operation.uuid, operation.pipeline))
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
        _ blob: Data, type: String, uuid: UUID, pipeline: String, graphID: UInt64, registeredName: String
    ) throws(CloudCoreError) -> CloudOperation {
        guard let decode = decoders[type] else {
            throw CloudCoreError(
                .unknownOperationType,
                "cloud core \"\(registeredName)\": queued operation \(uuid) has payload type \"\(type)\", which is "
                    + "not in the options' operationTypes; it stays queued until the type is registered or it is "
                    + "skipped", operation: uuid, pipeline: pipeline)
        }
        do {
            var bytes = blob
            if let chain {
                let plain = try chain.deserialize(
                    blob, collection: Self.collection(registeredName), key: Self.key(uuid, pipeline))
                guard let plain = plain as? Data else {
                    throw DatabaseError(.typeMismatch, "the queue's codec did not return bytes")
                }
                bytes = plain
            }
            var envelope = EnvelopeReader(bytes: bytes)
            let fields = try envelope.read()
            var operation = CloudOperation(
                try decode(bytes.suffix(from: bytes.startIndex + envelope.offset), reader), pipeline: pipeline,
                dependencies: fields.dependencies, priority: fields.priority, holdDate: fields.holdDate, uuid: uuid)
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

    /// The "key" the stages bind the bytes to: the operation and its pipeline.
    private static func key(_ uuid: UUID, _ pipeline: String) -> String {
        uuid.uuidString + "@" + pipeline
    }

    /// Format, priority (Int32 LE), hold flag and date (Float64 LE seconds since 2001), dependency
    /// count (UInt32 LE) and each dependency's 16 bytes, sorted so equal operations encode alike.
    private static func envelope(of operation: CloudOperation) -> Data {
        var bytes = Data()
        bytes.reserveCapacity(16 + 16 * operation.dependencies.count + 64)
        bytes.append(format)
        withUnsafeBytes(of: operation.priority.littleEndian) { bytes.append(contentsOf: $0) }
        if let hold = operation.holdDate {
            bytes.append(1)
            withUnsafeBytes(of: hold.timeIntervalSinceReferenceDate.bitPattern.littleEndian) {
                bytes.append(contentsOf: $0)
            }
        } else {
            bytes.append(0)
        }
        let dependencies = operation.dependencies.map(\.storedBytes).sorted { $0.lexicographicallyPrecedes($1) }
        withUnsafeBytes(of: UInt32(dependencies.count).littleEndian) { bytes.append(contentsOf: $0) }
        for dependency in dependencies { bytes.append(dependency) }
        return bytes
    }

    private static func decoder<Payload: CloudOperationPayload>(for type: Payload.Type) -> Decode {
        { bytes, reader in try reader.decode(Payload.self, from: bytes) }
    }
}

/// Reads the envelope ``CloudOperationCoder`` writes.
private struct EnvelopeReader {
    let bytes: Data
    /// Where the next field starts, from the start of `bytes`.
    private(set) var offset = 0

    init(bytes: Data) {
        self.bytes = bytes
    }

    mutating func read() throws -> (priority: Int32, holdDate: Date?, dependencies: Set<UUID>) {
        guard try take(1).first == CloudOperationCoder.format else {
            throw DatabaseError(.unsupportedFormat, "a queued operation has an envelope of an unknown format")
        }
        let priority = Int32(bitPattern: UInt32(truncatingIfNeeded: try integer(4)))
        var holdDate: Date?
        if try take(1).first == 1 {
            holdDate = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try integer(8)))
        }
        let count = Int(try integer(4))
        var dependencies = Set<UUID>()
        for _ in 0..<count {
            guard let uuid = UUID(storedBytes: try take(16)) else { throw Self.truncated }
            dependencies.insert(uuid)
        }
        return (priority, holdDate, dependencies)
    }

    private static let truncated = DatabaseError(.corrupt, "a queued operation's envelope is truncated")

    private mutating func take(_ count: Int) throws -> Data {
        let start = bytes.startIndex + offset
        guard count <= bytes.count - offset else { throw Self.truncated }
        offset += count
        return Data(bytes[start..<start + count])
    }

    /// `count` little-endian bytes as an integer.
    private mutating func integer(_ count: Int) throws -> UInt64 {
        try take(count).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension CloudOperationPayload {
    /// The payload encoded with its concrete type.
    fileprivate func encoded(with writer: CodableWriter) throws -> Data {
        try writer.encode(self)
    }
}
