import Foundation

/// One row as one line of JSON (JSON Lines).
///
/// This is the format of `export-json`, `import-json` and `get --json`:
///
/// ```
/// {"collection":"notes","key":"n1","value":{"title":"Hi"},"metadata":null}
/// {"collection":"blobs","key":"b1","valueBase64":"AAEC","metadataBase64":"…"}
/// ```
///
/// A stored value that is single-line JSON text is written as is, so the line shows it and an
/// import restores it byte for byte; anything else (binary, compressed or encrypted blobs,
/// multi-line JSON) is written in base64 under `valueBase64` / `metadataBase64`.
/// `"metadata":null` (or no member) means the row has no metadata.
struct RowLine: Equatable {
    /// The row's collection ("" for the default collection).
    var collection: String
    /// The row's key.
    var key: String
    /// The stored bytes of the object.
    var object: Data
    /// The stored bytes of the metadata, if any.
    var metadata: Data?

    /// The line, without the trailing newline.
    func encoded() -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(object.count + (metadata?.count ?? 0) + collection.utf8.count + key.utf8.count + 64)
        line += Array(#"{"collection":"#.utf8)
        Self.appendString(collection, to: &line)
        line += Array(#","key":"#.utf8)
        Self.appendString(key, to: &line)
        Self.appendBytes(object, member: "value", to: &line)
        if let metadata, !Self.isNullLiteral(metadata) {
            Self.appendBytes(metadata, member: "metadata", to: &line)
        } else if let metadata {
            Self.appendBytes(metadata, member: "metadata", forceBase64: true, to: &line)
        } else {
            line += Array(#","metadata":null"#.utf8)
        }
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// Parses one line.
    /// - Throws: ``CLIError`` `.invalidInput` naming `lineNumber` and what is wrong (never the
    ///   line's contents).
    init(decoding bytes: [UInt8], lineNumber: Int) throws {
        func failure(_ reason: String) -> CLIError {
            CLIError(.invalidInput, "line \(lineNumber): \(reason)")
        }
        let members: [String: Range<Int>]
        do {
            members = try JSONObjectScanner.members(of: bytes)
        } catch {
            throw failure(error.reason)
        }
        func string(_ name: String) throws -> String? {
            guard let range = members[name] else { return nil }
            do {
                return try JSONObjectScanner.decodeString(Array(bytes[range]))
            } catch {
                throw failure("\"\(name)\" must be a string")
            }
        }
        func bytesOf(_ name: String, allowNull: Bool) throws -> Data? {
            if let range = members[name] {
                let span = Data(bytes[range])
                if allowNull && Self.isNullLiteral(span) { return nil }
                guard Self.isValidJSON(span) else { throw failure("\"\(name)\" is not valid JSON") }
                return span
            }
            if let encoded = try string(name + "Base64") {
                guard let data = Data(base64Encoded: encoded) else { throw failure("\"\(name)Base64\" is not base64") }
                return data
            }
            return nil
        }
        guard let collection = try string("collection") else { throw failure("missing \"collection\"") }
        guard let key = try string("key") else { throw failure("missing \"key\"") }
        if members["value"] != nil && members["valueBase64"] != nil {
            throw failure("\"value\" and \"valueBase64\" cannot both be given")
        }
        guard let object = try bytesOf("value", allowNull: false) else {
            throw failure("missing \"value\" or \"valueBase64\"")
        }
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = try bytesOf("metadata", allowNull: true)
    }

    /// Creates a row from its parts.
    init(collection: String, key: String, object: Data, metadata: Data?) {
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = metadata
    }

    /// Whether `data` can be written into a line as it is: valid single-line UTF-8 JSON text.
    static func isEmbeddableJSON(_ data: Data) -> Bool {
        guard let first = data.first(where: { $0 != 0x20 && $0 != 0x09 }) else { return false }
        let starts = Array("{[\"-0123456789tfn".utf8)
        guard starts.contains(first), !data.contains(0x0A), !data.contains(0x0D) else { return false }
        guard String(validating: data, as: UTF8.self) != nil else { return false }
        return isValidJSON(data)
    }

    /// Whether `data` is JSON text that can be printed: valid UTF-8 that parses as a JSON value.
    static func isJSONText(_ data: Data) -> Bool {
        String(validating: data, as: UTF8.self) != nil && isValidJSON(data)
    }

    /// Whether `data` parses as a JSON value.
    static func isValidJSON(_ data: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil
    }

    private static func isNullLiteral(_ data: Data) -> Bool {
        data.elementsEqual("null".utf8)
    }

    private static func appendBytes(_ data: Data, member: String, forceBase64: Bool = false, to line: inout [UInt8]) {
        if !forceBase64 && isEmbeddableJSON(data) {
            line += Array(",\"\(member)\":".utf8)
            line += data
        } else {
            line += Array(",\"\(member)Base64\":\"".utf8)
            line += Array(data.base64EncodedString().utf8)
            line.append(UInt8(ascii: "\""))
        }
    }

    /// Appends `text` as a JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else as UTF-8.
    static func appendString(_ text: String, to line: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        line.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): line += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): line += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: line += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: line += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: line += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                line += Array("\\u00".utf8)
                line += [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }
}
