/// How a view's groups become the sections and rows of a list UI, and the group counts of the
/// snapshot the UI currently shows.
///
/// A port of YapDatabase's `YapDatabaseViewMappings` without UIKit. It decides which groups are
/// sections (a fixed list, or the view's groups picked and ordered by a filter and a sort), and
/// per group whether it is shown reversed, whether only a range of it is shown, whether it
/// disappears while empty, and which neighbouring rows must be redrawn when a row changes; it
/// can also fold all groups into one section while they hold few rows. It translates between
/// index paths and (group, index) pairs, and `ViewChanges` uses two of them (before and after)
/// to turn a view's raw change records into the changes a UI applies.
///
/// Mappings are a value: copy one to keep the "before" state. They know nothing about the
/// database; `update(groupCounts:allGroups:)` feeds them the counts of a snapshot. Until the
/// first update they report no sections content (every count is zero).
public struct ViewMappings: Sendable {
    /// The name of the view these mappings describe, for the code that reads the view.
    public let viewName: String

    /// Every group the mappings consider, in section order.
    ///
    /// The list given at creation, or for dynamic groups the view's groups that passed the
    /// filter, in the sort's order, as of the last update. Some of them may be hidden (see
    /// `visibleGroups`).
    public internal(set) var allGroups: [String]

    /// Whether the group list is recomputed from the view's groups on every update.
    let groupsAreDynamic: Bool
    /// Picks the view's groups to show, for dynamic groups.
    let groupFilter: (@Sendable (String) -> Bool)?
    /// Orders the picked groups, for dynamic groups.
    let groupSort: (@Sendable (String, String) -> Bool)?

    /// Per-group "hide while empty" settings; groups without one use `dynamicSectionsDefault`.
    var dynamicSections: [String: Bool] = [:]
    /// The "hide while empty" setting of groups without their own.
    var dynamicSectionsDefault = false
    /// The groups shown in reverse order.
    var reversedGroups: Set<String> = []
    /// The range of each group that shows only part of it, kept with the pin the group's index
    /// order needs (flipped for a reversed group) and its current length and offset.
    var rangeOptions: [String: ViewRangeOptions] = [:]
    /// For each group, the offsets of the rows whose drawing depends on a row, kept in the
    /// group's index order (negated for a reversed group).
    var dependencies: [String: Set<Int>] = [:]
    /// Below this many rows in total, all groups are shown as one section.
    public internal(set) var autoConsolidateGroupsThreshold = 0
    /// The name of the one section all groups fold into, or `nil` when folding is off.
    public internal(set) var consolidatedGroupName: String?

    /// The number of rows of each group in the last update.
    var counts: [String: Int] = [:]
    /// The groups shown as sections, ignoring folding into one section.
    var visibleGroupList: [String] = []
    /// Whether the groups are currently folded into one section.
    public internal(set) var isUsingConsolidatedGroup = false
    /// Set while `ViewChanges` processes a batch, which works group by group even when the
    /// groups are folded into one section.
    var autoConsolidationDisabled = false
    /// Whether the mappings have been given counts at least once.
    public internal(set) var hasUpdated = false

    /// Mappings that show `groups` as sections, in this order.
    ///
    /// A group listed twice is kept once, at its first place, since two sections cannot show
    /// the same rows.
    public init(groups: [String], view viewName: String = "") {
        var seen = Set<String>()
        self.allGroups = groups.filter { seen.insert($0).inserted }
        self.viewName = viewName
        groupsAreDynamic = false
        groupFilter = nil
        groupSort = nil
    }

    /// Mappings whose sections are the view's groups that `filter` accepts, ordered so that a
    /// group comes before another when `sort` says so, recomputed on every update.
    public init(
        view viewName: String = "",
        groupFilter filter: @escaping @Sendable (String) -> Bool,
        groupSort sort: @escaping @Sendable (String, String) -> Bool
    ) {
        self.allGroups = []
        self.viewName = viewName
        groupsAreDynamic = true
        groupFilter = filter
        groupSort = sort
    }

    /// Whether `group` may be configured: any group for dynamic groups (it may appear later),
    /// otherwise one of the listed groups.
    func isValidGroup(_ group: String) -> Bool {
        groupsAreDynamic || allGroups.contains(group)
    }
}
