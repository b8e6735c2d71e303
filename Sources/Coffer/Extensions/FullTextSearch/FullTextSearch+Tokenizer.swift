extension FullTextSearch {
    /// How a ``FullTextSearch`` splits text into tokens.
    ///
    /// See SQLite's FTS3/FTS4 documentation, "Tokenizers" (https://sqlite.org/fts3.html#tokenizer).
    public enum Tokenizer: Sendable, Hashable {
        /// ASCII case folding, splits on anything that is not a letter or digit (FTS3/4 `simple`;
        /// FTS5 has no `simple`, so `ascii` is used there).
        case simple
        /// `simple` plus English stemming (Porter): "running" matches "run".
        case porter
        /// Unicode 6.1 case folding and word boundaries; `removeDiacritics` makes "café" match "cafe".
        case unicode61(removeDiacritics: Bool = true)
        /// Another tokenizer the SQLite build provides, by name, with its arguments (identifiers,
        /// digits, `_`, `,`, `.`, `-`, `=` and spaces only).
        case custom(name: String, arguments: [String] = [])

        /// The `tokenize=…` option for `version`.
        func definition(for version: Version) -> String {
            let (name, arguments): (String, [String])
            switch (self, version) {
            case (.simple, .fts5): (name, arguments) = ("ascii", [])
            case (.simple, _): (name, arguments) = ("simple", [])
            case (.porter, _): (name, arguments) = ("porter", [])
            case (.unicode61(let remove), .fts5):
                (name, arguments) = ("unicode61", ["remove_diacritics", remove ? "1" : "0"])
            case (.unicode61(let remove), _): (name, arguments) = ("unicode61", ["remove_diacritics=\(remove ? 1 : 0)"])
            case (.custom(let custom, let args), _): (name, arguments) = (custom, args)
            }
            if version == .fts5 {
                return "tokenize='" + ([name] + arguments).joined(separator: " ") + "'"
            }
            return "tokenize=" + ([name] + arguments.map { "\"\($0)\"" }).joined(separator: " ")
        }

        /// Checks a custom tokenizer's name and arguments before they reach SQL.
        /// - Throws: ``DatabaseError`` `.extensionFailure`.
        func validate() throws {
            guard case .custom(let name, let arguments) = self else { return }
            guard ExtensionSQL.isPlainIdentifier(name) else {
                throw DatabaseError(.extensionFailure, "tokenizer name \"\(name)\" is not a plain identifier")
            }
            for argument in arguments
            where !FullTextSearch.isSafeOptionText(argument.replacingOccurrences(of: "=", with: "")) {
                throw DatabaseError(
                    .extensionFailure, "an argument of tokenizer \"\(name)\" has characters that are not allowed")
            }
        }
    }
}
