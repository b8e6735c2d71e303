public import Foundation

/// An object that asks for work to be done at a time: it returns the action items the
/// ``ActionManager`` runs (YapDatabase's `YapActionable`).
///
/// ```swift
/// struct Credential: Codable, Sendable, Actionable {
///     var token: String
///     var expires: Date
///
///     var actionItems: [ActionItem] {
///         [ActionItem(identifier: "refresh", date: expires.addingTimeInterval(-300), retryTimeout: 60,
///                     requiresNetwork: true) { run in try await refresh(run) }]
///     }
/// }
/// ```
///
/// The items must depend on the row alone (its object, or what the schedule's handler reads):
/// the schedule is kept sorted by the items' dates as rows are written, and the manager
/// computes them again whenever it reads the row.
public protocol Actionable {
    /// The work this object asks for now; empty when it needs none.
    ///
    /// An item stops running when the row stops returning it: the work itself usually updates
    /// the row so that it does (clears a flag, moves a date).
    var actionItems: [ActionItem] { get }
}

/// One piece of work a row asks for: what, when, how often to try again, and whether it needs
/// the network (YapDatabase's `YapActionItem`).
///
/// Two items of a row are the same item when they have the same ``identifier`` and ``date``:
/// a row that moves an item to a later date (a refresh that succeeded schedules the next one)
/// asks for a new item, which runs again when due.
public struct ActionItem: Sendable {
    /// Names the work among the items of its row (`"refresh"`, `"upload"`).
    public let identifier: String
    /// When the work is due; `.distantPast` runs it as soon as the manager sees it.
    public let date: Date
    /// How long after a run the manager runs the item again while the row still returns it; nil
    /// (or not positive) runs it once.
    ///
    /// A run still going when the timeout passes is not doubled: the next run starts when it ends.
    public let retryTimeout: TimeInterval?
    /// Whether the work needs the network: while the manager's ``NetworkReachability`` reports
    /// none, a due item waits instead of failing and waiting out its retry timeout.
    public let requiresNetwork: Bool
    /// The work, run off the writer in a task of its own when the item is due.
    ///
    /// A thrown error is logged (its type, never its text) and the item runs again after its
    /// retry timeout. The work may read and write the database; it should change the row so that
    /// the item goes away or moves once the work is done.
    public let work: @Sendable (_ run: ActionRun) async throws -> Void

    /// An item.
    ///
    /// - Parameters:
    ///   - identifier: Names the work among the items of its row.
    ///   - date: When the work is due (by default: now).
    ///   - retryTimeout: Seconds after a run to run it again while the row still returns it.
    ///   - requiresNetwork: Whether the work waits for the network.
    ///   - work: The work.
    public init(
        identifier: String, date: Date = .distantPast, retryTimeout: TimeInterval? = nil,
        requiresNetwork: Bool = false, work: @escaping @Sendable (_ run: ActionRun) async throws -> Void
    ) {
        self.identifier = identifier
        self.date = date
        self.retryTimeout = retryTimeout
        self.requiresNetwork = requiresNetwork
        self.work = work
    }

    /// The timeout when the item runs again, nil when it runs once.
    var effectiveRetryTimeout: TimeInterval? {
        guard let retryTimeout, retryTimeout > 0 else { return nil }
        return retryTimeout
    }

    /// Whether `other` is the same item (same identifier and date).
    func isSameItem(as other: ActionItem) -> Bool {
        identifier == other.identifier && date == other.date
    }

    /// The schedule's order of a row's items: by date, then identifier, so that equal dates do
    /// not depend on the order the object listed them in.
    static func precedes(_ left: ActionItem, _ right: ActionItem) -> Bool {
        left.date != right.date ? left.date < right.date : left.identifier < right.identifier
    }
}

/// What the work of an ``ActionItem`` is told about the run: the row, the item, and the database.
public struct ActionRun: Sendable {
    /// The collection of the row that returned the item.
    public let collection: String
    /// The key of the row that returned the item.
    public let key: String
    /// The item's identifier.
    public let identifier: String
    /// The date the item was due at.
    public let date: Date
    /// 1 for the first run of the item, 2 for its first retry, and so on (counted since the
    /// manager started: a restart counts from 1 again).
    public let attempt: Int
    /// The database, for the work to update the row (usually on a connection the app keeps).
    public let database: Database
}
