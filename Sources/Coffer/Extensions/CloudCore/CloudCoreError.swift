public import Foundation

/// Every error CloudCore throws of its own: a code to switch on and the extension, pipeline and
/// operation involved.
///
/// Failures of the storage underneath (SQLite) are thrown as they come, as ``DatabaseError``; a
/// serializer stage's failure on a queued operation arrives in ``underlying``. Descriptions never
/// contain payload values or key bytes.
public struct CloudCoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The operation's payload type is not in ``CloudCoreOptions/operationTypes``; a queued
        /// one stays in the file and runs once the type is registered again.
        case unknownOperationType
        /// A queued operation's bytes could not be decoded (damaged, wrong key, changed type).
        case undecodableOperation
        /// A dependency names an operation that is not queued in the same pipeline.
        case dependencyNotFound
        /// The dependencies would form a cycle, so none of the operations could ever start.
        case dependencyCycle
        /// No pipeline of that name is registered with the extension.
        case unknownPipeline
        /// No queued operation has that UUID.
        case operationNotFound
        /// An operation with that UUID is already queued.
        case duplicateOperation
        /// The graph index is out of range for the pipeline.
        case graphNotFound
        /// The row named does not exist.
        case rowNotFound
        /// Tags or attachments are used but not enabled in ``CloudCoreOptions``.
        case featureDisabled
        /// A change was attempted in a read-only transaction, or the API was misused otherwise.
        case misuse
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation naming the extension, pipeline and operation.
    public var message: String
    /// The operation involved, if any.
    public var operation: UUID?
    /// The pipeline involved, if any.
    public var pipeline: String?
    /// The error that caused this one.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, operation: UUID? = nil, pipeline: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.pipeline = pipeline
        self.underlying = underlying
    }

    /// `code: message`, with the underlying error when there is one.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let underlying { text += " — \(underlying)" }
        return text
    }
}
