@testable import Coffer

/// Shorthand for the raw records and expected changes of the view logic tests, so that each
/// ported YapDatabase scenario reads as its list of records and its list of outcomes.
enum ViewLogic {
    /// A row inserted at `index` of `group`, keyed `key` in the default collection.
    static func insert(_ key: String, _ group: String = "", at index: Int, collection: String = "") -> ViewChangeRecord
    {
        .insertRow(CollectionKey(collection: collection, key: key), group: group, index: index)
    }

    /// The row keyed `key` removed from `index` of `group`.
    static func delete(_ key: String, _ group: String = "", at index: Int, collection: String = "") -> ViewChangeRecord
    {
        .deleteRow(CollectionKey(collection: collection, key: key), group: group, index: index)
    }

    /// The row keyed `key` at `index` of `group` changed in place.
    static func update(
        _ key: String, _ group: String = "", at index: Int, parts: ViewChangedParts = .object
    ) -> ViewChangeRecord {
        .updateRow(CollectionKey(collection: "", key: key), group: group, index: index, parts: parts)
    }

    /// The raw row changes of `records` after the index resolution and the per-row
    /// consolidation, with no mappings involved (YapDatabase's `processRowChanges` with nil
    /// mappings followed by `consolidateRowChanges`).
    static func processedRows(_ records: [ViewChangeRecord]) -> [Op] {
        var rows: [WorkingRowChange] = records.compactMap { record in
            switch record {
            case .insertRow(let key, let group, let index): .insert(key, group: group, index: index)
            case .deleteRow(let key, let group, let index): .delete(key, group: group, index: index)
            case .updateRow(let key, let group, let index, let parts):
                .update(key, group: group, index: index, parts: parts)
            default: nil
            }
        }
        ViewChanges.resolveIndexes(&rows)
        ViewChanges.consolidateRows(&rows)
        return rows.map { row in
            switch row.kind {
            case .insert: .insert(row.finalIndex)
            case .delete: .delete(row.originalIndex)
            case .move: .move(row.originalIndex, row.finalIndex)
            case .update: .update(row.originalIndex)
            }
        }
    }

    /// A processed row change by kind and index, for tests without sections.
    enum Op: Hashable, CustomStringConvertible {
        case insert(Int)
        case delete(Int)
        case move(Int, Int)
        case update(Int)

        var description: String {
            switch self {
            case .insert(let index): "insert \(index)"
            case .delete(let index): "delete \(index)"
            case .move(let from, let to): "move \(from) -> \(to)"
            case .update(let index): "update \(index)"
            }
        }
    }

    /// A row change by kind and index paths, as a UI applies it.
    enum Row: Hashable, CustomStringConvertible {
        case insert(Int, Int)
        case delete(Int, Int)
        case move(from: ViewIndexPath, to: ViewIndexPath)
        case update(Int, Int)

        /// The shape of `change`; positions the kind does not use are left out (an update is
        /// reloaded at its original path).
        init(_ change: ViewRowChange) {
            let from = change.originalIndexPath ?? ViewIndexPath(section: -1, row: -1)
            let to = change.finalIndexPath ?? ViewIndexPath(section: -1, row: -1)
            switch change.kind {
            case .insert: self = .insert(to.section, to.row)
            case .delete: self = .delete(from.section, from.row)
            case .move: self = .move(from: from, to: to)
            case .update: self = .update(from.section, from.row)
            }
        }

        /// A move from `[fromSection, fromRow]` to `[toSection, toRow]`.
        static func move(_ fromSection: Int, _ fromRow: Int, _ toSection: Int, _ toRow: Int) -> Row {
            .move(
                from: ViewIndexPath(section: fromSection, row: fromRow),
                to: ViewIndexPath(section: toSection, row: toRow))
        }

        var description: String {
            switch self {
            case .insert(let section, let row): "insert [\(section), \(row)]"
            case .delete(let section, let row): "delete [\(section), \(row)]"
            case .move(let from, let to): "move \(from) -> \(to)"
            case .update(let section, let row): "update [\(section), \(row)]"
            }
        }
    }

    /// A section change by kind and section.
    enum Section: Hashable, CustomStringConvertible {
        case insert(Int)
        case delete(Int)

        /// The shape of `change`.
        init(_ change: ViewSectionChange) {
            self = change.kind == .insert ? .insert(change.section) : .delete(change.section)
        }

        var description: String {
            switch self {
            case .insert(let section): "insert section \(section)"
            case .delete(let section): "delete section \(section)"
            }
        }
    }

    /// The outcome of a batch: its section and row changes and the final mappings.
    struct Outcome {
        var changes: ViewChangeSet
        var mappings: ViewMappings

        var sections: [Section] { changes.sectionChanges.map(Section.init) }
        var rows: [Row] { changes.rowChanges.map(Row.init) }
    }

    /// Runs `records` through the whole processing with `mappings` updated to `before`, then
    /// (without recomputing ranges, as a reader moving to a new snapshot does) to `after`.
    static func run(
        _ records: [ViewChangeRecord], mappings: ViewMappings, before: [String: Int], after: [String: Int]
    ) -> Outcome {
        var mappings = mappings
        mappings.update(groupCounts: before, allGroups: nil, recomputingRanges: false)
        let original = mappings
        mappings.update(groupCounts: after, allGroups: nil, recomputingRanges: false)
        let changes = ViewChanges.consolidate(records, originalMappings: original, finalMappings: &mappings)
        return Outcome(changes: changes, mappings: mappings)
    }

    /// Mappings of `groups` whose empty groups hide (`dynamic`) or stay as empty sections.
    static func mappings(_ groups: [String], dynamic: Bool = true) -> ViewMappings {
        var mappings = ViewMappings(groups: groups)
        mappings.isDynamicSectionForAllGroups = dynamic
        return mappings
    }

    /// Mappings of the one group `""` showing `options` (and reversed when asked).
    static func single(_ options: ViewRangeOptions?, reversed: Bool = false) -> ViewMappings {
        var mappings = ViewMappings(groups: [""], view: "view")
        if reversed { mappings.setIsReversed(true, forGroup: "") }
        mappings.setRangeOptions(options, forGroup: "")
        return mappings
    }

    /// Runs `records` on the one group `""` going from `before` to `after` rows.
    static func run(_ records: [ViewChangeRecord], _ mappings: ViewMappings, _ before: Int, _ after: Int) -> Outcome {
        run(records, mappings: mappings, before: ["": before], after: ["": after])
    }

    /// Inserts of keys `key1`, `key2` and on, at `indexes` in order.
    static func inserts(at indexes: [Int]) -> [ViewChangeRecord] {
        indexes.enumerated().map { insert("key\($0.offset + 1)", at: $0.element) }
    }

    /// Deletes of keys `key1`, `key2` and on, at `indexes` in order.
    static func deletes(at indexes: [Int]) -> [ViewChangeRecord] {
        indexes.enumerated().map { delete("key\($0.offset + 1)", at: $0.element) }
    }
}
