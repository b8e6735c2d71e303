import Foundation

/// Finds the members of a one-line JSON object and the exact bytes of each member's value.
///
/// `import-json` stores a value's JSON text byte for byte as it appears in the line, so an
/// export followed by an import reproduces the stored bytes exactly; a parser that builds
/// values and re-serializes them could change number formatting or key order. The scanner only
/// delimits values; each span is then checked with `JSONSerialization`.
enum JSONObjectScanner {
    /// Why a line is not a JSON object.
    struct Failure: Error, Equatable {
        /// What is wrong, without quoting the line (it may hold a secret value).
        var reason: String
    }

    /// Member name → byte range of its value, for `bytes` holding exactly one JSON object.
    /// - Throws: ``Failure`` for anything but one well-delimited object.
    /// - Complexity: O(n) in the length of the line.
    static func members(of bytes: [UInt8]) throws(Failure) -> [String: Range<Int>] {
        var index = skipWhitespace(bytes, 0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw Failure(reason: "not a JSON object") }
        index = skipWhitespace(bytes, index + 1)
        var members: [String: Range<Int>] = [:]
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            return try finish(bytes, index + 1, members)
        }
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw Failure(reason: "expected a member name")
            }
            let nameEnd = try skipString(bytes, index)
            let name = try decodeString(Array(bytes[index..<nameEnd]))
            index = skipWhitespace(bytes, nameEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw Failure(reason: "expected ':' after \"\(name)\"")
            }
            index = skipWhitespace(bytes, index + 1)
            let valueEnd = try skipValue(bytes, index)
            guard valueEnd > index else { throw Failure(reason: "missing value for \"\(name)\"") }
            guard members[name] == nil else { throw Failure(reason: "member \"\(name)\" appears twice") }
            members[name] = index..<valueEnd
            index = skipWhitespace(bytes, valueEnd)
            guard index < bytes.count else { throw Failure(reason: "unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index = skipWhitespace(bytes, index + 1)
            } else if bytes[index] == UInt8(ascii: "}") {
                return try finish(bytes, index + 1, members)
            } else {
                throw Failure(reason: "expected ',' or '}' after \"\(name)\"")
            }
        }
    }

    /// Decodes a JSON string literal (quotes included).
    /// - Throws: ``Failure`` when it is not a valid string literal.
    static func decodeString(_ literal: [UInt8]) throws(Failure) -> String {
        let value = try? JSONSerialization.jsonObject(with: Data(literal), options: .fragmentsAllowed)
        guard let string = value as? String else { throw Failure(reason: "invalid string") }
        return string
    }

    private static func finish(
        _ bytes: [UInt8], _ index: Int, _ members: [String: Range<Int>]
    ) throws(Failure) -> [String: Range<Int>] {
        guard skipWhitespace(bytes, index) == bytes.count else { throw Failure(reason: "text after the object") }
        return members
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the string literal starting at `start` (a quote).
    private static func skipString(_ bytes: [UInt8], _ start: Int) throws(Failure) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        throw Failure(reason: "unterminated string")
    }

    /// The index after the value starting at `start`; brackets are matched by depth only, the
    /// span is validated afterwards.
    private static func skipValue(_ bytes: [UInt8], _ start: Int) throws(Failure) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return try skipString(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = try skipString(bytes, index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            throw Failure(reason: "unterminated object or array")
        default:
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}")
                    || byte == UInt8(ascii: "]")
                {
                    break
                }
                index += 1
            }
            return index
        }
    }
}
