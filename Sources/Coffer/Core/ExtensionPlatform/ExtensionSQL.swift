/// SQL text helpers for extensions that create their own tables.
///
/// Table and column names end up in DDL, where nothing can be bound, so they are restricted to
/// plain identifiers and always quoted.
enum ExtensionSQL {
    static let savepoint: StaticString = #"SAVEPOINT "coffer_extension""#
    static let rollbackToSavepoint: StaticString =
        #"ROLLBACK TO SAVEPOINT "coffer_extension"; RELEASE SAVEPOINT "coffer_extension""#
    static let releaseSavepoint: StaticString = #"RELEASE SAVEPOINT "coffer_extension""#

    /// `name` as a quoted SQL identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Whether `name` is a plain identifier: an ASCII letter or `_`, then letters, digits or `_`.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first == "_" || first.properties.isAlphabetic else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
    }

    /// Checks a list of column names: at least one, plain identifiers, unique ignoring case (as
    /// SQLite compares them), none of the `reserved` names.
    /// - Throws: ``DatabaseError`` `.extensionFailure` naming the offending column.
    static func validateColumnNames(_ names: [String], reserved: Set<String>, owner: String) throws {
        guard !names.isEmpty else {
            throw DatabaseError(.extensionFailure, "\(owner) needs at least one column")
        }
        var seen: Set<String> = []
        for name in names {
            guard isPlainIdentifier(name) else {
                throw DatabaseError(
                    .extensionFailure, "\(owner) column \"\(name)\" is not a plain identifier (letters, digits, _)")
            }
            let folded = name.lowercased()
            guard !reserved.contains(folded) else {
                throw DatabaseError(.extensionFailure, "\(owner) column \"\(name)\" is a reserved name")
            }
            guard seen.insert(folded).inserted else {
                throw DatabaseError(.extensionFailure, "\(owner) column \"\(name)\" appears twice")
            }
        }
    }
}
