import Foundation

/// In-place edits of fixture copies.
enum ByteSurgery {
    /// Inverts every bit of the byte at `offset`.
    /// - Throws: ``GeneratorError`` when the file is shorter, or I/O errors.
    static func flip(at offset: Int, in url: URL) throws {
        var bytes = try Data(contentsOf: url)
        guard offset < bytes.count else { throw GeneratorError("\(url.lastPathComponent) is shorter than \(offset)") }
        bytes[offset] ^= 0xFF
        try bytes.write(to: url)
    }

    /// Cuts the last `count` bytes off.
    /// - Throws: ``GeneratorError`` when the file is shorter, or I/O errors.
    static func truncate(_ url: URL, by count: Int) throws {
        let bytes = try Data(contentsOf: url)
        guard bytes.count > count else { throw GeneratorError("\(url.lastPathComponent) is too short") }
        try bytes.prefix(bytes.count - count).write(to: url)
    }

    /// Replaces the first character of a JSON string field `"name" : "…"` with another base64 character.
    /// - Throws: ``GeneratorError`` when the field is not found, or I/O errors.
    static func replaceFirstBase64Character(ofField name: String, in url: URL) throws {
        var text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        guard let field = text.range(of: "\"\(name)\""),
            let open = text[field.upperBound...].firstIndex(of: "\""),
            text.index(after: open) < text.endIndex
        else { throw GeneratorError("no field \(name) in \(url.lastPathComponent)") }
        let first = text.index(after: open)
        let replacement: Character = text[first] == "A" ? "B" : "A"
        text.replaceSubrange(first...first, with: String(replacement))
        try Data(text.utf8).write(to: url)
    }
}
