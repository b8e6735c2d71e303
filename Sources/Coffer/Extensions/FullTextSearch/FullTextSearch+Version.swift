extension FullTextSearch {
    /// The SQLite full-text module a ``FullTextSearch`` uses.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// FTS3: the oldest module, in every SQLCipher build with FTS enabled.
        case fts3
        /// FTS4: FTS3 plus statistics for faster queries; the default.
        case fts4
        /// FTS5: not in SQLCipher 3.4.1 (SQLite 3.15.2); registration fails there with `.unsupportedFeature`.
        case fts5
    }
}
