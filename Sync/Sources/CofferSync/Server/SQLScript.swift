/// Splits a SQL script into statements, because postgres-nio runs one statement per query
/// (the extended protocol).
///
/// Understands what the shipped schema uses: `--` and `/* */` comments, '…' strings (with ''),
/// "…" identifiers, and $tag$…$tag$ bodies. Not E'…' strings with backslash escapes.
enum SQLScript {
    /// The script's statements, without their semicolons, comments kept, blank ones dropped.
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current: [Character] = []
        let characters = Array(script)
        var index = 0

        func append(upTo end: Int) {
            current.append(contentsOf: characters[index..<end])
            index = end
        }
        func firstIndex(of needle: [Character], from start: Int) -> Int {
            var position = start
            while position + needle.count <= characters.count {
                if characters[position..<position + needle.count].elementsEqual(needle) { return position }
                position += 1
            }
            return characters.count
        }

        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            switch character {
            case "-" where next == "-":
                let end = firstIndex(of: ["\n"], from: index)
                append(upTo: min(end + 1, characters.count))
            case "/" where next == "*":
                let end = firstIndex(of: ["*", "/"], from: index + 2)
                append(upTo: min(end + 2, characters.count))
            case "'", "\"":
                var end = index + 1
                while end < characters.count {
                    if characters[end] == character {
                        // A doubled quote is an escaped quote, not the end.
                        if end + 1 < characters.count, characters[end + 1] == character {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                append(upTo: min(end + 1, characters.count))
            case "$":
                if let tag = dollarTag(characters, at: index) {
                    let end = firstIndex(of: tag, from: index + tag.count)
                    append(upTo: min(end + tag.count, characters.count))
                } else {
                    append(upTo: index + 1)
                }
            case ";":
                statements.append(String(current))
                current.removeAll()
                index += 1
            default:
                append(upTo: index + 1)
            }
        }
        statements.append(String(current))
        return statements.filter { !isBlank($0) }
    }

    /// The `$tag$` opening a dollar-quoted string at `start`, or nil (a `$1` parameter, say).
    private static func dollarTag(_ characters: [Character], at start: Int) -> [Character]? {
        var end = start + 1
        while end < characters.count,
            characters[end] == "_" || characters[end].isLetter
                || (end > start + 1 && characters[end].isNumber)
        {
            end += 1
        }
        guard end < characters.count, characters[end] == "$" else { return nil }
        return Array(characters[start...end])
    }

    /// Whether a piece holds only whitespace and comments.
    private static func isBlank(_ statement: String) -> Bool {
        statement.split(separator: "\n").allSatisfy { line in
            let trimmed = line.drop(while: { $0.isWhitespace })
            return trimmed.isEmpty || trimmed.hasPrefix("--")
        }
    }
}
