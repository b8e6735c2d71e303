/// A view: the rows of the database that a grouping puts in groups, each group kept in the order
/// of a sorting as rows change (YapDatabase's `YapDatabaseAutoView`).
///
/// ```swift
/// let inbox = AutoView(
///     grouping: .metadata(MessageInfo.self) { row, group in group = row.metadata.conversation },
///     sorting: .metadata(MessageInfo.self) { _, left, right in
///         left.metadata.sent < right.metadata.sent ? .orderedAscending : .orderedDescending
///     },
///     allowedCollections: .only(["messages"]))
/// try database.register(inbox, withName: "inbox")
///
/// try connection.read { tx in
///     let view = try tx.extension("inbox", as: AutoViewTransaction.self)
///     let newest = try view.key(at: 0, inGroup: "team")
/// }
/// ```
///
/// A group holds its rows in pages of at most 50 rowids; finding, inserting or removing a row
/// reads and writes one page, and an order-statistics tree over the pages finds the one holding
/// any index in O(log n). A persistent view keeps its pages in the tables `view_<name>_page` and
/// `view_<name>_map`; one that is not keeps them in memory, is built again at every
/// registration, and answers the same at every snapshot.
///
/// The grouping runs again when the part of a row it reads changes (its ``RowHandler`` kind), the
/// sorting likewise (``ViewSorting/kind``); a row whose group and place stay is reported as
/// updated. Changing the grouping's or the sorting's logic needs a new ``versionTag``, at
/// registration or with ``AutoViewTransaction/setGrouping(_:sorting:versionTag:)`` inside a
/// transaction.
public struct AutoView: DatabaseExtension {
    /// Puts a row in a group (or, leaving the group nil, out of the view).
    public let grouping: ViewGrouping
    /// Orders the rows of a group.
    public let sorting: ViewSorting
    /// A caller-chosen version: registering with a different tag rebuilds the view.
    public let versionTag: String
    /// The collections whose rows the view considers.
    public let allowedCollections: AllowList<String>
    /// Whether registration leaves the view empty instead of adding the rows already there.
    public let skipInitialViewPopulation: Bool
    /// Whether the view keeps its pages in the file, or only in memory (rebuilt at every
    /// registration, which makes opening slower and writes cheaper).
    public let isPersistent: Bool

    /// A view configuration.
    public init(
        grouping: ViewGrouping, sorting: ViewSorting, versionTag: String = "",
        allowedCollections: AllowList<String> = .all, skipInitialViewPopulation: Bool = false,
        isPersistent: Bool = true
    ) {
        self.grouping = grouping
        self.sorting = sorting
        self.versionTag = versionTag
        self.allowedCollections = allowedCollections
        self.skipInitialViewPopulation = skipInitialViewPopulation
        self.isPersistent = isPersistent
    }

    /// "AutoView".
    public var kind: String { "AutoView" }

    /// The page and map tables of a persistent view; none for one in memory.
    public func tableNames(registeredName: String) -> [String] {
        guard isPersistent else { return [] }
        return [Self.pageTableName(registeredName: registeredName), Self.mapTableName(registeredName: registeredName)]
    }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The view's page cache for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        ViewConnectionState(registration: registration, isPersistent: isPersistent) { context, state in
            AutoViewMaintainer(AutoViewTransaction(context: context, state: state, configuration: self))
        }
    }

    /// The page table of a view registered as `registeredName`.
    public static func pageTableName(registeredName: String) -> String { "view_\(registeredName)_page" }
    /// The row → page table of a view registered as `registeredName`.
    public static func mapTableName(registeredName: String) -> String { "view_\(registeredName)_map" }
}

/// The part of an ``AutoView`` a transaction can change: shared by every connection of a
/// registration, replaced when a transaction that changed it commits.
struct AutoViewLogic: Sendable {
    var grouping: ViewGrouping
    var sorting: ViewSorting
    var versionTag: String
}
