import Coffer

/// A user's extension, written against Coffer's public extension protocol only: it keeps, in
/// its own table, how many rows each allowed collection holds.
///
/// The table `rowCounter_<name>` has one row per non-empty collection (`collection TEXT PRIMARY
/// KEY, count INTEGER`). Every write hook adjusts the counts inside the writing transaction —
/// buffered, and written by the pre-commit flush — and registration fills them from the rows
/// already there. Queries go through ``RowCounterTransaction``
/// (`tx.extension("counter", as: RowCounterTransaction.self)`); each connection keeps the counts
/// it has read in its ``RowCounterConnectionState``, kept current by the commits of other
/// connections (``RowCounterChanges``).
struct RowCounter: DatabaseExtension {
    /// The collections whose rows are counted.
    var allowedCollections: AllowList<String> = .all
    /// The user's version: registering with another tag counts every row again.
    var versionTag = ""
    /// Extensions this one is registered after (a counter needs none; dependency tests give it some).
    var dependencies: Set<String> = []
    /// Runs for every row registration counts; throwing fails the registration.
    ///
    /// Tests poison a row with it, to see what a registration that fails half-way leaves behind.
    var populateCheck: (@Sendable (CollectionKey) throws -> Void)?
    /// Where the states made for this configuration are counted, when a test wants to know.
    var census: StateCensus?

    /// Recorded in the file and the prefix of the table, `rowCounter_<name>`.
    var kind: String { "rowCounter" }

    var derivedCollections: AllowList<String>? { allowedCollections }

    /// The table of a counter registered as `registeredName`.
    static func tableName(registeredName: String) -> String {
        "rowCounter_" + registeredName
    }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        RowCounterConnectionState(
            counter: self, table: defaultTableName(registeredName: registration.name), census: census)
    }
}

/// What one commit changed in a ``RowCounter``: the change of each collection's count.
struct RowCounterChanges: Sendable, Equatable {
    /// Collection → how much its count went up (negative: down); collections that did not change are absent.
    var deltas: [String: Int]
}
