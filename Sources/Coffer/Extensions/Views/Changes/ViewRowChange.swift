/// A row a list UI inserts, deletes, moves or redraws to go from one snapshot of a view to the
/// next.
///
/// Original positions are in the old snapshot, final ones in the new, as a batch update
/// expects: apply deletes at their original paths and inserts at their final paths, move from
/// the original to the final path, and reload updates at their original path.
public struct ViewRowChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the row.
    public enum Kind: Hashable, Sendable {
        /// The row appears at its final position.
        case insert
        /// The row disappears from its original position.
        case delete
        /// The row goes from its original to its final position (possibly the same position:
        /// a row that was removed and re-added is always a move, since an update would be
        /// applied at a position shifted by the other changes).
        case move
        /// The row stays where it is and is redrawn.
        case update
    }

    /// What happened to the row.
    public var kind: Kind
    /// The row, or `nil` for rows that only slid into or out of a shown range, or that are
    /// redrawn for a neighbour's sake.
    public var collectionKey: CollectionKey?
    /// What changed in the row.
    public var changedParts: ViewChangedParts
    /// The group the row was in (for a delete, move or update).
    public var originalGroup: String?
    /// The row's index in the old snapshot's section (for a delete, move or update).
    public var originalIndex: Int?
    /// The row's section in the old snapshot (for a delete, move or update).
    public var originalSection: Int?
    /// The group the row is in (for an insert, move or update).
    public var finalGroup: String?
    /// The row's index in the new snapshot's section (for an insert, move or update).
    public var finalIndex: Int?
    /// The row's section in the new snapshot (for an insert, move or update).
    public var finalSection: Int?

    /// Creates a row change from its parts.
    public init(
        kind: Kind, collectionKey: CollectionKey?, changedParts: ViewChangedParts,
        originalGroup: String?, originalSection: Int?, originalIndex: Int?,
        finalGroup: String?, finalSection: Int?, finalIndex: Int?
    ) {
        self.kind = kind
        self.collectionKey = collectionKey
        self.changedParts = changedParts
        self.originalGroup = originalGroup
        self.originalSection = originalSection
        self.originalIndex = originalIndex
        self.finalGroup = finalGroup
        self.finalSection = finalSection
        self.finalIndex = finalIndex
    }

    /// The row's path in the old snapshot (for a delete, move or update).
    public var originalIndexPath: ViewIndexPath? {
        guard let originalSection, let originalIndex else { return nil }
        return ViewIndexPath(section: originalSection, row: originalIndex)
    }

    /// The row's path in the new snapshot (for an insert, move or update).
    public var finalIndexPath: ViewIndexPath? {
        guard let finalSection, let finalIndex else { return nil }
        return ViewIndexPath(section: finalSection, row: finalIndex)
    }

    /// The change as `move [1, 0] -> [0, 1] (oak)`, for test failures and logs.
    public var description: String {
        let from = originalIndexPath.map(\.description) ?? "~"
        let to = finalIndexPath.map(\.description) ?? "~"
        let key = collectionKey.map { " (\($0.key))" } ?? ""
        switch kind {
        case .insert: return "insert \(to)\(key)"
        case .delete: return "delete \(from)\(key)"
        case .move: return "move \(from) -> \(to)\(key)"
        case .update: return "update \(from)\(key)"
        }
    }
}
