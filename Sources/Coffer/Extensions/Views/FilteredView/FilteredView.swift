/// A view of the rows of another view that a filter keeps, in the parent's groups and order
/// (YapDatabase's `YapDatabaseFilteredView`).
///
/// ```swift
/// let unread = FilteredView(
///     parentViewName: "inbox",
///     filtering: .metadata(MessageInfo.self) { _, row in !row.metadata.read })
/// try database.register(unread, withName: "unread")
/// ```
///
/// The parent may be any view, another filtered view included. The filtered view follows every
/// change of its parent in the same transaction: a row the parent gains is filtered, a row it
/// loses leaves, a row it updates is filtered again when the part the filter reads changed, and
/// a parent rebuilt by a new grouping or sorting rebuilds this view. Unregistering the parent
/// unregisters its filtered views. Changing the filter's logic needs a new ``versionTag``, at
/// registration or with ``FilteredViewTransaction/setFiltering(_:versionTag:)``.
public struct FilteredView: DatabaseExtension {
    /// The registered name of the view this one filters.
    public let parentViewName: String
    /// Keeps or leaves out each of the parent's rows.
    public let filtering: ViewFiltering
    /// A caller-chosen version: registering with a different tag rebuilds the view.
    public let versionTag: String
    /// Whether registration leaves the view empty instead of filtering the parent's rows.
    public let skipInitialViewPopulation: Bool
    /// Whether the view keeps its pages in the file, or only in memory (rebuilt at every
    /// registration).
    public let isPersistent: Bool

    /// A filtered view of the view registered as `parentViewName`.
    public init(
        parentViewName: String, filtering: ViewFiltering, versionTag: String = "",
        skipInitialViewPopulation: Bool = false, isPersistent: Bool = true
    ) {
        self.parentViewName = parentViewName
        self.filtering = filtering
        self.versionTag = versionTag
        self.skipInitialViewPopulation = skipInitialViewPopulation
        self.isPersistent = isPersistent
    }

    /// "FilteredView".
    public var kind: String { "FilteredView" }

    /// The parent view.
    public var dependencies: Set<String> { [parentViewName] }

    /// The page and map tables of a persistent view; none for one in memory.
    public func tableNames(registeredName: String) -> [String] {
        guard isPersistent else { return [] }
        return [
            AutoView.pageTableName(registeredName: registeredName),
            AutoView.mapTableName(registeredName: registeredName),
        ]
    }

    /// The view's page cache for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        ViewConnectionState(registration: registration, isPersistent: isPersistent) { context, state in
            FilteredViewMaintainer(FilteredViewTransaction(context: context, state: state, configuration: self))
        }
    }
}

extension FilteredView: FollowingView {}

/// The part of a ``FilteredView`` a transaction can change.
struct FilteredViewLogic: Sendable {
    var filtering: ViewFiltering
    var versionTag: String
}
