public import Foundation

/// The byte format the Codable codecs write new values in.
///
/// Whatever a codec writes, it reads all three: the first bytes tell them apart (`0xC1` starts
/// a binary value, `bplist` a property list, anything else is JSON). So switching a collection's
/// format never makes its existing rows unreadable; they keep their format until they are
/// written again or re-encoded (``Database/reencode(collection:batchSize:progress:)``).
///
/// Choosing ``binary`` is a one-way step for the files it writes: Coffer versions before the
/// binary format cannot read its rows.
public enum CodableFormat: String, Sendable, Hashable, CaseIterable {
    /// JSON with sorted keys (`JSONEncoder`): Coffer's default, readable by every version.
    case json
    /// Coffer's compact binary format (``BinaryEncoder``): smaller, and several times faster
    /// to encode and decode.
    case binary
    /// A binary property list (`PropertyListEncoder`), as YapDatabase's Swift codable serializer.
    case propertyList

    /// The format of stored codec bytes, judged by their first bytes.
    public static func detect(_ data: Data) -> CodableFormat {
        guard let first = data.first else { return .json }
        if first == BinaryFormat.magic { return .binary }
        if first == UInt8(ascii: "b") && data.starts(with: propertyListMagic) { return .propertyList }
        return .json
    }

    private static let propertyListMagic = Array("bplist".utf8)
}

/// Decodes stored codec bytes of any ``CodableFormat``, JSON with the codec's own decoder.
struct CodableReader: Sendable {
    let json: JSONDecoder
    let binary = BinaryDecoder()

    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        switch CodableFormat.detect(data) {
        case .binary: return try binary.decode(T.self, from: data)
        case .json: return try json.decode(T.self, from: data)
        case .propertyList: return try PropertyListDecoder().decode(T.self, from: data)
        }
    }
}

/// Encodes values in one ``CodableFormat`` with encoders made once (the counterpart of ``CodableReader``).
struct CodableWriter: Sendable {
    let format: CodableFormat
    private let json: JSONEncoder
    private let binary = BinaryEncoder()
    private let propertyList: PropertyListEncoder

    /// A writer of `format`, JSON through `json` (sorted keys when nil).
    init(format: CodableFormat, json: JSONEncoder? = nil) {
        self.format = format
        self.json = json ?? Serializer.canonicalJSONEncoder()
        let propertyList = PropertyListEncoder()
        propertyList.outputFormat = .binary
        self.propertyList = propertyList
    }

    @inline(__always)
    func encode<T: Encodable>(_ value: T) throws -> Data {
        switch format {
        case .json: try json.encode(value)
        case .binary: try binary.encode(value)
        case .propertyList: try propertyList.encode(value)
        }
    }
}

extension CodableFormat {
    /// The codec's name in error messages ("json", "binary", "plist").
    var codecName: String {
        switch self {
        case .json: "json"
        case .binary: "binary"
        case .propertyList: "plist"
        }
    }
}
