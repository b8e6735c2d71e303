/// A view whose groups hold the rows the app puts in them, in the order it chooses.
///
/// YapDatabase's `YapDatabaseManualView`. Nothing enters the view on its own: there is no
/// grouping or sorting, only the changes of ``ManualViewTransaction``.
///
/// ```swift
/// try database.register(ManualView(), withName: "playlist")
///
/// try connection.readWrite { tx in
///     let view = try tx.extension("playlist", as: ManualViewTransaction.self)
///     try view.addKey("song-1", inCollection: "songs", toGroup: "favourites")
///     try view.insertKey("song-2", inCollection: "songs", at: 0, inGroup: "favourites")
/// }
/// ```
///
/// The database still keeps the view true to the rows: a row in the view that is removed
/// leaves it, and one that is changed or touched is reported updated in place.
///
/// It keeps its rows in pages exactly as an ``AutoView`` does: a persistent one in the tables
/// `view_<name>_page` and `view_<name>_map`, one that is not in memory, which starts empty at
/// every registration (there is nothing to build it from).
public struct ManualView: DatabaseExtension {
    /// A caller-chosen version: registering with a different tag empties the view.
    public let versionTag: String
    /// Whether the view keeps its pages in the file, or only in memory (empty again at every registration).
    public let isPersistent: Bool

    /// A manual view configuration.
    public init(versionTag: String = "", isPersistent: Bool = true) {
        self.versionTag = versionTag
        self.isPersistent = isPersistent
    }

    /// "ManualView".
    public var kind: String { "ManualView" }

    /// The page and map tables of a persistent view; none for one in memory.
    public func tableNames(registeredName: String) -> [String] {
        guard isPersistent else { return [] }
        return [
            AutoView.pageTableName(registeredName: registeredName),
            AutoView.mapTableName(registeredName: registeredName),
        ]
    }

    /// Nil: rows of any collection can be added, so a change to any row may change the view.
    public var derivedCollections: AllowList<String>? { nil }

    /// The view's page cache for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        ViewConnectionState(registration: registration, isPersistent: isPersistent) { context, state in
            ManualViewMaintainer(ManualViewTransaction(context: context, state: state, configuration: self))
        }
    }
}
