/// Full-text search over text derived from rows, kept exact inside every write transaction
/// (YapDatabase's `YapDatabaseFullTextSearch`), on SQLite's FTS module.
///
/// A handler fills the named columns with text for each row; the text lives in the virtual table
/// `fts_<name>` whose rowid is the row's rowid in `database2`. Queries use SQLite's MATCH syntax
/// (`"swift encrypt*"` for rows with both, `"swift OR rust"`, `"title:coffer"`,
/// `"\"exact phrase\""`); SQLCipher 3.4.1 as Debian builds it has the standard syntax, where
/// `AND` is an ordinary word. Quote a user's text into one phrase before searching for it
/// (SECURITY.md explains why):
///
/// ```swift
/// let search = FullTextSearch(
///     columns: ["title", "body"],
///     handler: .object(Note.self) { row, text in
///         text["title"] = row.object.title
///         text["body"] = row.object.body
///     },
///     tokenizer: .porter)
/// try database.register(search, withName: "notes_fts")
///
/// try connection.read { tx in
///     try tx.fullTextSearch("notes_fts")?.enumerateKeys(matching: "encrypt*") { collection, key, stop in … }
/// }
/// ```
///
/// SQLCipher 3.4.1 (SQLite 3.15.2) has FTS3 and FTS4 but no FTS5: the default is ``Version/fts4``,
/// and registering ``Version/fts5`` where the module is missing fails with `.unsupportedFeature`.
/// A handler that sets no column gives the row no entry. Changing the columns, tokenizer, options
/// or handler logic needs a new ``versionTag`` (a changed table definition is detected and rebuilt
/// even without one).
public struct FullTextSearch: DatabaseExtension {
    /// The searchable columns, in order.
    public let columns: [String]
    /// The closure that fills the columns' text for a row.
    public let handler: FullTextSearchHandler
    /// The SQLite module.
    public let version: Version
    /// How text is split into tokens; nil uses the module's default (`simple` for FTS3/4).
    public let tokenizer: Tokenizer?
    /// Further module options (for example `["prefix": "2,3"]` for FTS4 prefix indexes), written
    /// quoted into the table definition; keys are identifiers, values use letters, digits, `_`,
    /// `,`, `.`, `-` and spaces only.
    public let options: [String: String]
    /// A caller-chosen version: registering with a different tag rebuilds the table.
    public let versionTag: String
    /// The collections whose rows are searchable; rows elsewhere are never passed to the handler.
    public let allowedCollections: AllowList<String>

    /// Creates a full-text search configuration (registration checks it).
    public init(
        columns: [String], handler: FullTextSearchHandler, version: Version = .fts4, tokenizer: Tokenizer? = nil,
        options: [String: String] = [:], versionTag: String = "", allowedCollections: AllowList<String> = .all
    ) {
        self.columns = columns
        self.handler = handler
        self.version = version
        self.tokenizer = tokenizer
        self.options = options
        self.versionTag = versionTag
        self.allowedCollections = allowedCollections
    }

    /// The name of the virtual table for an extension registered as `registeredName`.
    public static func tableName(registeredName: String) -> String {
        "fts_" + registeredName
    }
}

/// The handler of a ``FullTextSearch``: fills `text[column] = "…"` for the columns.
public typealias FullTextSearchHandler = RowHandler<[String: String]>

extension FullTextSearch {
    /// "FullTextSearch", as YapDatabase records it.
    public var kind: String { "FullTextSearch" }

    /// The virtual table `fts_<name>` (and the shadow tables its module makes).
    public func tableNames(registeredName: String) -> [String] {
        [Self.tableName(registeredName: registeredName)]
    }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The search's SQL for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        let sql = FullTextSearchSQL(registeredName: registration.name, search: self)
        return StatelessConnectionState { DerivedTableMaintainer(FullTextSearchTransaction(context: $0, search: self, sql: sql)) }
    }

    /// Checks columns, tokenizer and options before anything reaches SQL.
    /// - Throws: ``DatabaseError`` `.extensionFailure` naming what is wrong.
    func validate(registeredName: String) throws {
        let table = Self.tableName(registeredName: registeredName).lowercased()
        try ExtensionSQL.validateColumnNames(
            columns, reserved: ["rowid", "docid", "oid", "_rowid_", "rank", table], owner: "the full-text search")
        try tokenizer?.validate()
        for (key, value) in options {
            guard ExtensionSQL.isPlainIdentifier(key), key.lowercased() != "tokenize" else {
                throw DatabaseError(
                    .extensionFailure,
                    "full-text search option \"\(key)\" is not allowed (use the tokenizer parameter for tokenize)")
            }
            guard Self.isSafeOptionText(value) else {
                throw DatabaseError(
                    .extensionFailure,
                    "full-text search option \"\(key)\" has characters other than letters, digits, _ , . - and space")
            }
        }
    }

    /// Whether `text` can be written quoted into the table definition.
    static func isSafeOptionText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_,.- ".unicodeScalars.contains($0))
        }
    }
}
