@testable import Coffer

/// Applies a batch of section and row changes to the rows a list showed, the way a table view
/// applies a batch update, so a test can check that the changes lead to the rows it shows
/// next.
///
/// Deletes and the sources of moves are taken out at their original paths, deleted sections
/// go, inserted sections come in at their final index, then inserts and the destinations of
/// moves go in at their final paths in ascending order. Updates must name a row that stays.
enum ViewChangesApplier {
    /// Why a batch could not be applied.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The sections of rows after applying `sections` and `rows` to `old`.
    static func apply(
        sections sectionChanges: [ViewSectionChange], rows rowChanges: [ViewRowChange], to old: [[CollectionKey]]
    ) throws -> [[CollectionKey]] {
        var removedPaths = Set<ViewIndexPath>()
        var movedKeys: [ViewIndexPath: CollectionKey] = [:]
        for change in rowChanges where change.kind == .delete || change.kind == .move {
            guard let path = change.originalIndexPath, let key = row(at: path, in: old) else {
                throw Failure(description: "\(change) names no row of the old list")
            }
            guard removedPaths.insert(path).inserted else { throw Failure(description: "\(path) removed twice") }
            if change.kind == .move { movedKeys[path] = key }
        }
        for change in rowChanges where change.kind == .update {
            guard let path = change.originalIndexPath, row(at: path, in: old) != nil else {
                throw Failure(description: "\(change) names no row of the old list")
            }
            if removedPaths.contains(path) { throw Failure(description: "\(change) reloads a removed row") }
            if let key = change.collectionKey, row(at: path, in: old) != key {
                throw Failure(description: "\(change) reloads another row")
            }
        }

        let deletedSections = Set(sectionChanges.filter { $0.kind == .delete }.map(\.section))
        var kept: [[CollectionKey]] = []
        for (section, keys) in old.enumerated() where !deletedSections.contains(section) {
            kept.append(
                keys.enumerated().filter { !removedPaths.contains(ViewIndexPath(section: section, row: $0.offset)) }
                    .map(\.element))
        }
        for section in sectionChanges.filter({ $0.kind == .insert }).map(\.section).sorted() {
            guard section <= kept.count else { throw Failure(description: "section \(section) inserted past the end") }
            kept.insert([], at: section)
        }

        var arrivals: [(path: ViewIndexPath, key: CollectionKey)] = []
        for change in rowChanges where change.kind == .insert || change.kind == .move {
            guard let path = change.finalIndexPath else { throw Failure(description: "\(change) has no final path") }
            let key = change.kind == .move ? change.originalIndexPath.flatMap { movedKeys[$0] } : change.collectionKey
            guard let key else { throw Failure(description: "\(change) inserts an unknown row") }
            arrivals.append((path, key))
        }
        for arrival in arrivals.sorted(by: { $0.path < $1.path }) {
            let path = arrival.path
            guard kept.indices.contains(path.section), path.row <= kept[path.section].count else {
                throw Failure(description: "insert at \(path) lies past the end")
            }
            kept[path.section].insert(arrival.key, at: path.row)
        }
        return kept
    }

    /// The row at `path` of `sections`, if there is one.
    private static func row(at path: ViewIndexPath, in sections: [[CollectionKey]]) -> CollectionKey? {
        guard sections.indices.contains(path.section), sections[path.section].indices.contains(path.row) else {
            return nil
        }
        return sections[path.section][path.row]
    }
}
