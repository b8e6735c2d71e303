import Foundation

/// The handler that gives a row's action items: an ``ActionSchedule`` runs it inside the writer
/// to place the row in the schedule, and the ``ActionManager`` runs it again when it reads the row.
///
/// ```swift
/// let items = ActionItemsHandler.actionable(Credential.self)
/// ```
public typealias ActionItemsHandler = RowHandler<[ActionItem]>

extension RowHandler where Values == [ActionItem] {
    /// The items of every object that adopts ``Actionable``, whatever its type.
    ///
    /// It sees the objects of collections with a registered codec; in a collection stored with
    /// the automatic JSON codec an object is an ``EncodedValue`` until read as its type, so use
    /// ``actionable(_:)`` there.
    public static var actionable: ActionItemsHandler {
        .object { row, items in
            if let object = row.object as? any Actionable { items = object.actionItems }
        }
    }

    /// The items of objects of type `T`, decoded as `T` whatever the collection's codec.
    public static func actionable<T: Actionable>(_ type: T.Type) -> ActionItemsHandler {
        .object(T.self) { row, items in items = row.object.actionItems }
    }
}

/// The schedule of an ``ActionManager``: a view of the rows that return action items, sorted by
/// the date of each row's earliest item, kept in the file (YapDatabase's `YapDatabaseActionManager`,
/// which is an AutoView).
///
/// Register it like any extension; an ``ActionManager`` then runs what it holds:
///
/// ```swift
/// try database.register(ActionSchedule(allowedCollections: .only(["credentials"])), withName: "actions")
/// let manager = try ActionManager(database: database, schedule: "actions")
/// ```
///
/// The schedule is an ``AutoView`` underneath (kind `"ActionManager"`, one group,
/// ``scheduleGroup``): read it with ``ReadTransaction/extension(_:as:)`` as a ``ViewTransaction``.
/// Do not change its grouping or sorting. Being persistent (the default), a restart finds the
/// schedule in the file instead of examining every row; a change to what the handler returns
/// needs a new ``versionTag``, which rebuilds it.
public struct ActionSchedule: DatabaseExtension {
    /// The single group the schedule keeps its rows in.
    public static let scheduleGroup = "schedule"

    /// Gives each row's action items.
    public let items: ActionItemsHandler
    /// The collections whose rows may return action items.
    public let allowedCollections: AllowList<String>
    /// A caller-chosen version of ``items``' logic: registering with a different tag rebuilds the schedule.
    public let versionTag: String
    /// Whether the schedule is kept in the file (otherwise rebuilt from the rows at every registration).
    public let isPersistent: Bool

    /// A schedule.
    ///
    /// - Parameters:
    ///   - items: Gives each row's action items (by default: those of ``Actionable`` objects).
    ///   - allowedCollections: The collections whose rows may return items; naming them keeps
    ///     the writes of every other collection free of the schedule's cost.
    ///   - versionTag: The version of `items`' logic.
    ///   - isPersistent: Whether the schedule is kept in the file.
    public init(
        items: ActionItemsHandler = .actionable, allowedCollections: AllowList<String> = .all, versionTag: String = "",
        isPersistent: Bool = true
    ) {
        self.items = items
        self.allowedCollections = allowedCollections
        self.versionTag = versionTag
        self.isPersistent = isPersistent
    }

    /// "ActionManager".
    public var kind: String { "ActionManager" }

    /// ``allowedCollections``.
    public var derivedCollections: AllowList<String>? { allowedCollections }

    /// The view's page and map tables (none when not persistent).
    public func tableNames(registeredName: String) -> [String] {
        view.tableNames(registeredName: registeredName)
    }

    /// The view's state for one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        view.makeConnectionState(registration)
    }

    /// The view the schedule is: rows with items, in the order of their earliest item's date.
    var view: AutoView {
        let items = items
        // `RowHandler.Kind` is nested in a generic type: each handler type has its own.
        let kind: ViewGrouping.Kind =
            switch items.kind {
            case .key: .key
            case .object: .object
            case .metadata: .metadata
            case .row: .row
            }
        let grouping = ViewGrouping(kind: kind) { tx, group, ck, object, metadata in
            group =
                try Self.items(of: ck, object: object, metadata: metadata, by: items, in: tx).isEmpty
                ? nil : Self.scheduleGroup
        }
        // A row is compared by its first item's date, worked out once per row and write.
        let sorting = ViewSorting(kind: kind) { tx, row in
            try Self.firstDate(of: row, by: items, in: tx)
        } body: { _, left, right in
            left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
        }
        return AutoView(
            grouping: grouping, sorting: sorting, versionTag: versionTag, allowedCollections: allowedCollections,
            isPersistent: isPersistent)
    }

    /// The items `handler` gives for a row, in schedule order.
    static func items(
        of row: CollectionKey, object: LazyValue, metadata: LazyValue, by handler: ActionItemsHandler,
        in transaction: ReadTransaction
    ) throws -> [ActionItem] {
        var items: [ActionItem] = []
        try handler.body(transaction, &items, row, object, metadata)
        return items.count > 1 ? items.sorted(by: ActionItem.precedes) : items
    }

    /// The date of a row's earliest item; `.distantPast` for a row without items (which the
    /// grouping keeps out of the view anyway).
    static func firstDate(of row: ExtensionRow, by handler: ActionItemsHandler, in transaction: ReadTransaction) throws
        -> Date
    {
        var items: [ActionItem] = []
        try handler.body(transaction, &items, row.collectionKey, row.object, row.metadata)
        return items.lazy.map(\.date).min() ?? .distantPast
    }
}
