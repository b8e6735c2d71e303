import Coffer
import Foundation

/// How a stored value is shown: values in Coffer's binary Codable format as the JSON
/// `JSONEncoder` would have written for them, everything else as stored.
enum StoredValue {
    /// `bytes` as JSON text when they are a binary Codable value JSON can show, else unchanged
    /// (JSON stays as stored; compressed or encrypted blobs go to base64 further on).
    static func readable(_ bytes: Data) -> Data {
        guard BinaryDecoder.isBinary(bytes), let json = try? BinaryDecoder.jsonRepresentation(of: bytes) else {
            return bytes
        }
        return json
    }

    /// ``readable(_:)`` of optional bytes.
    static func readable(_ bytes: Data?) -> Data? { bytes.map(readable) }
}
