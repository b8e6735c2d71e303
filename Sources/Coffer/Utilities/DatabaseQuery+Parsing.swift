/// Checking a format and expanding its placeholders, without ever putting a value into the SQL.
extension DatabaseQuery {
    /// What replaces `(?)` when an empty list is bound: a subquery with no rows, so `x IN (…)` is
    /// false and `x NOT IN (…)` is true for every row, `NULL` included.
    static let emptyList = "(SELECT NULL WHERE 0)"

    /// The format with list placeholders expanded, and the values to bind in order.
    static func expand(_ format: String, _ arguments: [Argument]) throws -> (sql: String, bindings: [DatabaseValue]) {
        let scalars = Array(format.unicodeScalars)
        let placeholders = try placeholderOffsets(in: scalars)
        guard placeholders.count == arguments.count else {
            throw DatabaseError.invalidQuery(
                "the query format has \(placeholders.count) placeholder(s) but \(arguments.count) argument(s) were given"
            )
        }
        var sql = String.UnicodeScalarView()
        var bindings: [DatabaseValue] = []
        var copied = 0
        for (offset, argument) in zip(placeholders, arguments) {
            switch argument {
            case .value(let value):
                sql.append(contentsOf: scalars[copied...offset])
                copied = offset + 1
                bindings.append(value)
            case .list(let values) where !values.isEmpty:
                sql.append(contentsOf: scalars[copied..<offset])
                sql.append(
                    contentsOf: Array(repeating: "?", count: values.count).joined(separator: ", ").unicodeScalars)
                copied = offset + 1
                bindings.append(contentsOf: values)
            case .list:
                guard let open = neighbour(of: offset, in: scalars, step: -1), scalars[open] == "(",
                    let close = neighbour(of: offset, in: scalars, step: 1), scalars[close] == ")", open >= copied
                else {
                    throw DatabaseError.invalidQuery("an empty list can only be bound to a placeholder written as (?)")
                }
                sql.append(contentsOf: scalars[copied..<open])
                sql.append(contentsOf: emptyList.unicodeScalars)
                copied = close + 1
            }
        }
        sql.append(contentsOf: scalars[copied...])
        return (String(sql), bindings)
    }

    static func validateAggregate(_ function: String) throws {
        guard !function.allSatisfy(\.isWhitespace) else {
            throw DatabaseError.invalidQuery("the aggregate function is empty")
        }
        // The rest of the statement follows the function: a `--` comment left open would swallow
        // it, filter and placeholders with it.
        guard try placeholderOffsets(in: Array(function.unicodeScalars), textFollows: true).isEmpty else {
            throw DatabaseError.invalidQuery("the aggregate function cannot take placeholders")
        }
    }

    /// The first non-space scalar next to `offset` in direction `step`.
    private static func neighbour(of offset: Int, in scalars: [Unicode.Scalar], step: Int) -> Int? {
        var index = offset + step
        while scalars.indices.contains(index) {
            if !scalars[index].properties.isWhitespace { return index }
            index += step
        }
        return nil
    }

    /// The offsets of the `?` placeholders outside quotes and comments.
    ///
    /// Also the one place a format is vetted: no `;` anywhere (even in a literal: values belong in
    /// arguments), no NUL, no `?NNN`, `:name`, `@name`, `#name` or `$name` parameters, no unterminated
    /// quote or comment — and, when `textFollows`, no `--` comment running to the end.
    static func placeholderOffsets(in scalars: [Unicode.Scalar], textFollows: Bool = false) throws -> [Int] {
        if scalars.contains(";") {
            throw DatabaseError.invalidQuery("a query format cannot contain ';' (one statement only)")
        }
        // SQLite reads the SQL as a C string: it would stop at a NUL, silently dropping the rest
        // of the format and its placeholders.
        if scalars.contains("\0") {
            throw DatabaseError.invalidQuery("a query format cannot contain a NUL character")
        }
        var placeholders: [Int] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "'", "\"", "`":
                index = try skipQuoted(scalars, from: index, closing: scalar)
            case "[":
                index = try skipQuoted(scalars, from: index, closing: "]")
            case "-" where next(scalars, index) == "-":
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
                if textFollows && index == scalars.count {
                    throw DatabaseError.invalidQuery(
                        "a -- comment in the aggregate function must end with a line break")
                }
            case "/" where next(scalars, index) == "*":
                index += 2
                while index < scalars.count && !(scalars[index] == "*" && next(scalars, index) == "/") { index += 1 }
                guard index < scalars.count else {
                    throw DatabaseError.invalidQuery("a comment in the query is not closed")
                }
                index += 2
            case "?":
                if let following = next(scalars, index), following.properties.numericType != nil {
                    throw DatabaseError.invalidQuery("numbered parameters (?NNN) are not supported: use ? only")
                }
                placeholders.append(index)
                index += 1
            case ":", "@", "#":
                // Never part of an identifier in SQLite, so followed by a name it is a parameter
                // even right after a keyword (`NOT:a`).
                if let following = next(scalars, index), isIdentifierScalar(following) {
                    throw namedParameter
                }
                index += 1
            case "$":
                // `$` continues an identifier (`a$b`) and starts a parameter anywhere else (`$$a`).
                let previous = index > 0 ? scalars[index - 1] : " "
                if !isIdentifierScalar(previous), let following = next(scalars, index), isIdentifierScalar(following) {
                    throw namedParameter
                }
                index += 1
            default:
                index += 1
            }
        }
        return placeholders
    }

    /// The offset after the quote that closes the one at `start` (a doubled quote is an escape).
    private static func skipQuoted(_ scalars: [Unicode.Scalar], from start: Int, closing: Unicode.Scalar) throws -> Int
    {
        var index = start + 1
        while index < scalars.count {
            if scalars[index] == closing {
                if closing != "]", next(scalars, index) == closing {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        throw DatabaseError.invalidQuery("a quote in the query is not closed")
    }

    private static func next(_ scalars: [Unicode.Scalar], _ index: Int) -> Unicode.Scalar? {
        index + 1 < scalars.count ? scalars[index + 1] : nil
    }

    private static let namedParameter = DatabaseError.invalidQuery(
        "named parameters (:name, @name, #name, $name) are not supported: use ? only")

    /// Whether SQLite's tokenizer lets `scalar` continue an identifier (its `IdChar`).
    private static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar == "$" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
            || scalar.value > 0x7F
    }
}
