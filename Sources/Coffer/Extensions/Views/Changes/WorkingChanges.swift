/// A row change while `ViewChanges` processes a batch: where it happened at the moment it was
/// recorded (the `op` indexes, which never change) and where it sits in the old and new
/// snapshots (adjusted step by step).
struct WorkingRowChange: Hashable, Sendable {
    /// Stands for "no index": an insert's original index, a delete's final one.
    static let none = -1

    var kind: ViewRowChange.Kind
    var collectionKey: CollectionKey?
    var changedParts: ViewChangedParts
    var originalGroup: String?
    var finalGroup: String?
    /// The index the row had when the change was recorded (delete, update).
    var opOriginalIndex: Int
    /// The index the row got when the change was recorded (insert, update).
    var opFinalIndex: Int
    var originalIndex: Int
    var finalIndex: Int
    var originalSection: Int?
    var finalSection: Int?

    /// A row inserted at `index` of `group`; an unknown key stands for a row pulled into a
    /// range.
    static func insert(_ key: CollectionKey?, group: String, index: Int) -> WorkingRowChange {
        WorkingRowChange(
            kind: .insert, collectionKey: key, changedParts: [.object, .metadata],
            originalGroup: nil, finalGroup: group, opOriginalIndex: none, opFinalIndex: index,
            originalIndex: none, finalIndex: index)
    }

    /// The row at `index` of `group` removed; an unknown key stands for a row pushed out of a
    /// range or cleared with its group.
    static func delete(_ key: CollectionKey?, group: String, index: Int) -> WorkingRowChange {
        WorkingRowChange(
            kind: .delete, collectionKey: key, changedParts: [.object, .metadata],
            originalGroup: group, finalGroup: nil, opOriginalIndex: index, opFinalIndex: none,
            originalIndex: index, finalIndex: none)
    }

    /// The row at `index` of `group` changed in place; an unknown key stands for a neighbour
    /// redrawn because of a drawing dependency.
    static func update(_ key: CollectionKey?, group: String, index: Int, parts: ViewChangedParts) -> WorkingRowChange {
        WorkingRowChange(
            kind: .update, collectionKey: key, changedParts: parts,
            originalGroup: group, finalGroup: group, opOriginalIndex: index, opFinalIndex: index,
            originalIndex: index, finalIndex: index)
    }

    /// The public form, with the positions that mean nothing for the kind left out.
    var result: ViewRowChange {
        let hasOriginal = kind != .insert
        let hasFinal = kind != .delete
        return ViewRowChange(
            kind: kind, collectionKey: collectionKey, changedParts: changedParts,
            originalGroup: hasOriginal ? originalGroup : nil,
            originalSection: hasOriginal ? originalSection : nil,
            originalIndex: hasOriginal ? originalIndex : nil,
            finalGroup: hasFinal ? finalGroup : nil,
            finalSection: hasFinal ? finalSection : nil,
            finalIndex: hasFinal ? finalIndex : nil)
    }
}

/// A section change while `ViewChanges` processes a batch.
struct WorkingSectionChange: Hashable, Sendable {
    var kind: ViewSectionChange.Kind
    var group: String
    /// Whether the group was cleared at once, without a delete per row.
    var isClear = false
    var originalSection: Int?
    var finalSection: Int?

    /// The public form.
    var result: ViewSectionChange {
        let section = kind == .insert ? finalSection : originalSection
        return ViewSectionChange(kind: kind, group: group, section: section ?? 0)
    }
}

/// Whether two optional group names are both present and equal, the comparison the change
/// processing makes (an absent group never matches, not even another absent one).
func sameGroup(_ lhs: String?, _ rhs: String?) -> Bool {
    guard let lhs, let rhs else { return false }
    return lhs == rhs
}
