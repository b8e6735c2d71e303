extension FullTextSearch {
    /// How snippets of matching text are made (SQLite's `snippet()` function).
    ///
    /// Markers and ellipsis are bound as values, never written into SQL.
    public struct SnippetOptions: Sendable, Hashable {
        /// Text inserted before each matched term.
        public var startMatch: String
        /// Text inserted after each matched term.
        public var endMatch: String
        /// Text marking where the snippet cuts the column's text.
        public var ellipsis: String
        /// The snippet's length in tokens, 1…64.
        public var tokenCount: Int
        /// The column to take the snippet from; nil lets SQLite pick the best one.
        public var column: String?

        /// Creates snippet options; the defaults give `<b>term</b>`, `…` and 15 tokens from any column.
        public init(
            startMatch: String = "<b>", endMatch: String = "</b>", ellipsis: String = "…", tokenCount: Int = 15,
            column: String? = nil
        ) {
            self.startMatch = startMatch
            self.endMatch = endMatch
            self.ellipsis = ellipsis
            self.tokenCount = tokenCount
            self.column = column
        }
    }
}
