/// Why a value could not be turned into bytes or back, and at which stage of its chain.
///
/// The core wraps it in a ``DatabaseError`` that names the collection and key.
public struct SerializationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a code a caller can switch on.
    public enum Code: Sendable, Hashable {
        /// The object is not of the type the codec handles.
        case typeMismatch
        /// The codec failed to encode or decode.
        case codecFailed
    }

    /// What went wrong.
    public var code: Code
    /// The stage or codec that failed ("json", "zlib", "aes-gcm", "header", …).
    public var stage: String
    /// A human-readable reason; never contains value bytes or key material.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, stage: String, reason: String) {
        self.code = code
        self.stage = stage
        self.reason = reason
    }

    /// `stage: reason`.
    public var description: String { "\(stage): \(reason)" }
}
