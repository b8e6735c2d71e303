import Foundation

/// One transaction's part of a ``Relationship``: it keeps the edge table in step with every
/// write as it happens (so queries inside the transaction see the edges as they now are), and
/// queues the rules the writes set off for ``flushPendingChanges()``.
///
/// An edge whose end does not exist yet (a parent saved before its children) waits in memory
/// until that row is inserted; one still waiting at the flush is dropped.
final class RelationshipMaintainer: ExtensionTransaction {
    typealias Changes = RelationshipChanges

    /// One stored edge, with its ends as rowids in `database2`.
    struct StoredEdge {
        let id: Int64
        let name: String
        let source: Int64
        let destination: Int64?
        let file: URL?
        let rules: RelationshipEdge.Rules
        let isManual: Bool
    }

    /// An edge one of whose ends does not exist (yet).
    struct PendingEdge {
        let name: String
        let source: CollectionKey
        let destination: RelationshipEdge.Destination
        let rules: RelationshipEdge.Rules
        let isManual: Bool
    }

    /// A removed edge whose rules must run, with its ends' keys as they were when it went.
    struct RuleEvent {
        let edge: StoredEdge
        let reason: RelationshipEdge.Processing
        let sourceKey: CollectionKey?
        let destinationKey: CollectionKey?
        /// The removed row that set it off (nil for a manual removal).
        let cause: CollectionKey?
    }

    /// Identifies an edge for the commit's changes.
    struct EdgeKey: Hashable {
        let name: String
        let source: CollectionKey
        let destination: RelationshipEdge.Destination
    }

    let context: ExtensionContext
    let relationship: Relationship
    let sql: RelationshipSQL
    private var queries: RelationshipTransaction?

    /// Edges waiting for a missing end, by the key of the row they wait for.
    var pending: [CollectionKey: [PendingEdge]] = [:]
    /// Removed edges whose rules have not run yet.
    var events: [RuleEvent] = []
    /// The rows removed in this transaction, so an edge's other end can still be named.
    var removedRows: [Int64: CollectionKey] = [:]
    var addedEdges: [EdgeKey: RelationshipEdge] = [:]
    var removedEdges: [EdgeKey: RelationshipEdge] = [:]
    /// Files whose rules fired, not yet recorded.
    var scheduledFiles: [URL] = []
    /// Files recorded for deletion after the commit, with their records' ids.
    var recordedFiles: [(file: URL, record: Int64)] = []
    /// Records of finished deletions this transaction removed.
    var clearedRecords: Set<Int64> = []
    var checkedLedger = false
    /// Whether an edge to a file was stored since the last flush (a recorded file may be
    /// attached again).
    var addedFileEdge = false

    init(context: ExtensionContext, relationship: Relationship, sql: RelationshipSQL) {
        self.context = context
        self.relationship = relationship
        self.sql = sql
    }

    var queryInterface: AnyObject {
        if let queries { return queries }
        let made = RelationshipTransaction(maintainer: self)
        queries = made
        return made
    }

    var name: String { context.registeredName }

    // MARK: Setup

    func createTables() throws {
        for statement in sql.create { try context.tables.execute(statement) }
        try finishRecordedDeletions()
        let recorded = try context.tables.record(forKey: Self.nodeEdgesVersionKey)
        if let recorded, recorded != .text(relationship.nodeEdgesVersion) {
            // The nodes return other edges now: YapDatabase's repopulation keeps manual edges.
            try context.tables.run(sql.deleteProtocol)
            try populateNodeEdges()
        }
        if recorded != .text(relationship.nodeEdgesVersion) {
            try context.tables.setRecord(.text(relationship.nodeEdgesVersion), forKey: Self.nodeEdgesVersionKey)
        }
    }

    static let nodeEdgesVersionKey = "nodeEdgesVersion"

    func populate() throws {
        try populateNodeEdges()
    }

    /// Deletes the files a commit recorded but whose deletion did not finish (a crash, or the
    /// process ended first), and their records: the crash-safe half of file destinations.
    private func finishRecordedDeletions() throws {
        var records: [(Int64, Data?)] = []
        try context.tables.query(sql.selectFileRecords) { row, _ in records.append((row.int64(at: 0), row.data(at: 1)))
        }
        for (record, data) in records {
            if let data, let file = try? relationship.fileSerializer.decode(data) {
                RelationshipFileDeleter.remove(file)
            }
            try context.tables.run(sql.deleteFileRecord, [.integer(record)])
        }
    }

    /// Adds every allowed node's edges (the table holds no node edges).
    private func populateNodeEdges() throws {
        guard relationship.readsNodeEdges else { return }
        var nodes: [(CollectionKey, Int64, [RelationshipEdge])] = []
        try context.enumerateRows(
            in: relationship.allowedCollections, readingObject: true, readingMetadata: false
        ) { row in
            guard let node = try row.object.value() as? any RelationshipNode else { return }
            let edges = node.relationshipEdges
            if !edges.isEmpty { nodes.append((row.collectionKey, row.rowid, edges)) }
        }
        for (ck, rowid, edges) in nodes {
            for edge in edges {
                try add(
                    PendingEdge(
                        name: edge.name, source: ck, destination: edge.destination.normalized, rules: edge.rules,
                        isManual: false), sourceRowid: rowid)
            }
        }
        // Every row exists now: an edge still waiting points nowhere.
        pending.removeAll()
    }

    // MARK: Hooks

    func didInsert(_ row: ExtensionRow) throws {
        let ck = row.collectionKey
        if !removedRows.isEmpty { try reinserted(ck, at: row.rowid) }
        if !pending.isEmpty, let waiting = pending.removeValue(forKey: ck) {
            for edge in waiting { try add(edge, sourceRowid: nil) }
        }
        guard let edges = try nodeEdges(row), !edges.isEmpty else { return }
        for edge in edges {
            try add(
                PendingEdge(
                    name: edge.name, source: ck, destination: edge.destination.normalized, rules: edge.rules,
                    isManual: false), sourceRowid: row.rowid)
        }
    }

    func didUpdate(_ row: ExtensionRow) throws {
        guard let edges = try nodeEdges(row) else { return }
        try replaceNodeEdges(of: row.collectionKey, at: row.rowid, with: edges)
    }

    func didReplaceObject(_ row: ExtensionRow) throws {
        guard let edges = try nodeEdges(row) else { return }
        try replaceNodeEdges(of: row.collectionKey, at: row.rowid, with: edges)
    }

    func didRemove(_ ck: CollectionKey, rowid: Int64) throws {
        removedRows[rowid] = ck
        if !pending.isEmpty { dropPending { $0.source == ck } }
        var outgoing: [StoredEdge] = []
        var incoming: [StoredEdge] = []
        try context.tables.query(sql.selectBySource, [.integer(rowid)]) { row, _ in
            outgoing.append(try storedEdge(row))
        }
        try context.tables.query(sql.selectByDestination, [.integer(rowid)]) { row, _ in
            incoming.append(try storedEdge(row))
        }
        guard !outgoing.isEmpty || !incoming.isEmpty else { return }
        if !outgoing.isEmpty { try context.tables.run(sql.deleteBySource, [.integer(rowid)]) }
        if !incoming.isEmpty { try context.tables.run(sql.deleteByDestination, [.integer(rowid)]) }
        for edge in outgoing {
            let destinationKey = try edge.destination.flatMap { try key(forRowid: $0) }
            noteRemoved(edge, sourceKey: ck, destinationKey: destinationKey)
            events.append(
                RuleEvent(edge: edge, reason: .sourceDeleted, sourceKey: ck, destinationKey: destinationKey, cause: ck))
        }
        for edge in incoming where edge.source != rowid {
            let sourceKey = try key(forRowid: edge.source)
            noteRemoved(edge, sourceKey: sourceKey, destinationKey: ck)
            events.append(
                RuleEvent(edge: edge, reason: .destinationDeleted, sourceKey: sourceKey, destinationKey: ck, cause: ck))
        }
    }

    /// Each removed row must go through ``didRemove(_:rowid:)``: its edges' rules run for it.
    func removesEachRow(ofCollection collection: String) -> Bool { true }

    func willRemoveAllCollections() throws {
        // Every source goes: each file a delete rule covers is deleted with it.
        try context.tables.query(sql.selectAllFiles) { row, _ in
            let edge = try storedEdge(row)
            if let file = edge.file,
                !edge.rules.isDisjoint(with: [.deleteDestinationIfSourceDeleted, .deleteDestinationIfAllSourcesDeleted])
            {
                scheduleDeletion(of: file)
            }
        }
        var removed: [(StoredEdge, CollectionKey?, CollectionKey?)] = []
        try context.tables.query(sql.select(name: nil, source: nil, destination: nil, filesOnly: false)) { row, _ in
            let edge = try storedEdge(row)
            removed.append((edge, nil, nil))
        }
        for (edge, _, _) in removed {
            let sourceKey = try key(forRowid: edge.source)
            let destinationKey = try edge.destination.flatMap { try key(forRowid: $0) }
            noteRemoved(edge, sourceKey: sourceKey, destinationKey: destinationKey)
        }
    }

    func didRemoveAllCollections() throws {
        try context.tables.run(sql.deleteAll)
        pending.removeAll()
        events.removeAll()
        removedRows.removeAll()
    }

    // MARK: Commit

    var hasPendingChanges: Bool {
        !events.isEmpty || !pending.isEmpty || !scheduledFiles.isEmpty || (addedFileEdge && !recordedFiles.isEmpty)
            || (!checkedLedger && hasFinishedDeletions)
    }

    func flushPendingChanges() throws {
        try runRules()
        try recordScheduledFiles()
        addedFileEdge = false
        if !checkedLedger {
            checkedLedger = true
            try clearFinishedRecords()
        }
    }

    func changesForCommit() -> RelationshipChanges? {
        let changes = RelationshipChanges(
            addedEdges: Array(addedEdges.values), removedEdges: Array(removedEdges.values))
        return changes.isEmpty ? nil : changes
    }

    func didCommit() {
        guard let ledger = try? ledger() else { return }
        if !clearedRecords.isEmpty { ledger.forget(clearedRecords) }
        if !recordedFiles.isEmpty {
            relationship.fileDeleter.delete(
                recordedFiles.map(\.file), records: recordedFiles.map(\.record), ledger: ledger)
        }
        reset()
    }

    func didRollback() {
        reset()
    }

    private func reset() {
        pending.removeAll()
        events.removeAll()
        removedRows.removeAll()
        addedEdges.removeAll()
        removedEdges.removeAll()
        scheduledFiles.removeAll()
        recordedFiles.removeAll()
        clearedRecords.removeAll()
        checkedLedger = false
        addedFileEdge = false
    }

    // MARK: Edges

    /// The edges `row`'s object returns, or nil when node edges are not read for it.
    private func nodeEdges(_ row: ExtensionRow) throws -> [RelationshipEdge]? {
        guard relationship.readsNodeEdges, relationship.allowedCollections.isAllowed(row.collection) else { return nil }
        return (try row.object.value() as? any RelationshipNode)?.relationshipEdges ?? []
    }

    /// Stores `edge`, or keeps it waiting while one of its rows does not exist.
    func add(_ edge: PendingEdge, sourceRowid: Int64?) throws {
        guard let source = try sourceRowid ?? rowid(edge.source) else {
            pending[edge.source, default: []].append(edge)
            return
        }
        var destination: Int64?
        if case .row(let ck) = edge.destination {
            guard let found = try rowid(ck) else {
                pending[ck, default: []].append(edge)
                return
            }
            destination = found
        }
        if edge.isManual, let existing = try findManual(edge, source: source, destination: destination) {
            guard existing.rules != edge.rules else { return }
            try context.tables.run(sql.updateRules, [.integer(Int64(edge.rules.rawValue)), .integer(existing.id)])
            noteRemoved(existing, sourceKey: edge.source, destinationKey: destinationKey(edge))
        } else {
            try insert(name: edge.name, source: source, destination: destination, edge: edge)
        }
        noteAdded(edge)
    }

    private func insert(name: String, source: Int64, destination: Int64?, edge: PendingEdge) throws {
        var file: DatabaseValue = .null
        if case .file(let url) = edge.destination {
            file = .blob(try encode(url, edge: edge))
            addedFileEdge = true
        }
        try context.tables.run(
            sql.insert,
            [
                .text(name), .integer(source), destination.map { .integer($0) } ?? .null, file,
                .integer(Int64(edge.rules.rawValue)), .integer(edge.isManual ? 1 : 0),
            ])
    }

    private func encode(_ url: URL, edge: PendingEdge) throws -> Data {
        do {
            return try relationship.fileSerializer.encode(url)
        } catch {
            throw DatabaseError(
                .serialization, "relationship \"\(name)\" could not encode the file of edge \"\(edge.name)\"",
                collection: edge.source.collection, key: edge.source.key, underlying: error)
        }
    }

    /// The manual edge from `source` with `edge`'s name and destination, if stored.
    func findManual(_ edge: PendingEdge, source: Int64, destination: Int64?) throws -> StoredEdge? {
        var found: StoredEdge?
        if let destination {
            try context.tables.query(sql.findManual, [.integer(source), .text(edge.name), .integer(destination)]) {
                row, stop in
                found = try storedEdge(row)
                stop = true
            }
        } else if case .file(let url) = edge.destination {
            var candidates: [StoredEdge] = []
            try context.tables.query(sql.findManualFile, [.integer(source), .text(edge.name)]) { row, _ in
                candidates.append(try storedEdge(row))
            }
            found = candidates.first { $0.file == url }
        }
        return found
    }

    /// Replaces the node edges of `ck` (at `rowid`) with `edges`: unchanged edges stay, changed
    /// rules are updated, new edges are added, and a dropped edge goes with its rules run as if
    /// its source had been deleted (YapDatabase's contract).
    private func replaceNodeEdges(of ck: CollectionKey, at sourceRowid: Int64, with edges: [RelationshipEdge]) throws {
        if !pending.isEmpty { dropPending { !$0.isManual && $0.source == ck } }
        var existing: [StoredEdge] = []
        try context.tables.query(sql.selectProtocolBySource, [.integer(sourceRowid)]) { row, _ in
            existing.append(try storedEdge(row))
        }
        for edge in edges {
            let wanted = PendingEdge(
                name: edge.name, source: ck, destination: edge.destination.normalized, rules: edge.rules,
                isManual: false)
            var destination: Int64?
            if case .row(let target) = wanted.destination {
                guard let found = try rowid(target) else {
                    pending[target, default: []].append(wanted)
                    continue
                }
                destination = found
            }
            let match = existing.firstIndex { stored in
                guard stored.name == wanted.name else { return false }
                if let destination { return stored.destination == destination }
                if case .file(let url) = wanted.destination { return stored.file == url }
                return false
            }
            if let match {
                let stored = existing.remove(at: match)
                guard stored.rules != wanted.rules else { continue }
                try context.tables.run(sql.updateRules, [.integer(Int64(wanted.rules.rawValue)), .integer(stored.id)])
                noteRemoved(
                    stored, sourceKey: ck, destinationKey: try stored.destination.flatMap { try key(forRowid: $0) })
                noteAdded(wanted)
            } else {
                try insert(name: wanted.name, source: sourceRowid, destination: destination, edge: wanted)
                noteAdded(wanted)
            }
        }
        for stored in existing {
            try context.tables.run(sql.deleteEdge, [.integer(stored.id)])
            let destinationKey = try stored.destination.flatMap { try key(forRowid: $0) }
            noteRemoved(stored, sourceKey: ck, destinationKey: destinationKey)
            events.append(
                RuleEvent(
                    edge: stored, reason: .sourceDeleted, sourceKey: ck, destinationKey: destinationKey, cause: nil))
        }
    }

    /// A row removed earlier in the transaction was written again under the same key: as in
    /// YapDatabase, that is a replacement, so the removal's rules do not run, and the edges the
    /// removal took are restored (a node's own edges come back from its new object instead).
    private func reinserted(_ ck: CollectionKey, at rowid: Int64) throws {
        guard removedRows.values.contains(ck) else { return }
        let restored = events.filter { $0.cause == ck }
        events.removeAll { $0.cause == ck }
        removedRows = removedRows.filter { $0.value != ck }
        for event in restored {
            let edge = event.edge
            switch event.reason {
            case .sourceDeleted where edge.isManual:
                let destination: RelationshipEdge.Destination
                if let file = edge.file {
                    destination = .file(file)
                } else if let key = event.destinationKey {
                    destination = .row(key)
                } else {
                    continue
                }
                try add(
                    PendingEdge(
                        name: edge.name, source: ck, destination: destination, rules: edge.rules, isManual: true),
                    sourceRowid: rowid)
            case .destinationDeleted:
                guard let source = event.sourceKey else { continue }
                try add(
                    PendingEdge(
                        name: edge.name, source: source, destination: .row(ck), rules: edge.rules,
                        isManual: edge.isManual), sourceRowid: nil)
            default:
                continue
            }
        }
    }

    /// Removes the waiting edges `predicate` selects.
    func dropPending(where predicate: (PendingEdge) -> Bool) {
        for (ck, edges) in pending {
            let kept = edges.filter { !predicate($0) }
            pending[ck] = kept.isEmpty ? nil : kept
        }
    }

    // MARK: Reading

    func storedEdge(_ row: ResultRow) throws -> StoredEdge {
        var file: URL?
        if let data = row.data(at: 4) {
            do {
                file = try relationship.fileSerializer.decode(data).standardizedFileURL
            } catch {
                throw DatabaseError(
                    .serialization, "relationship \"\(name)\" could not decode the file of edge \"\(row.text(at: 1))\"",
                    underlying: error)
            }
        }
        return StoredEdge(
            id: row.int64(at: 0), name: row.text(at: 1), source: row.int64(at: 2),
            destination: row.isNull(at: 3) ? nil : row.int64(at: 3), file: file,
            rules: RelationshipEdge.Rules(rawValue: Int(row.int64(at: 5))), isManual: row.int64(at: 6) != 0)
    }

    func rowid(_ ck: CollectionKey) throws -> Int64? {
        try context.rowid(forKey: ck.key, inCollection: ck.collection)
    }

    /// The key of the row at `rowid`, or of the row removed from there in this transaction.
    func key(forRowid rowid: Int64) throws -> CollectionKey? {
        if let row = try context.row(forRowid: rowid, readingObject: false, readingMetadata: false) {
            return row.collectionKey
        }
        return removedRows[rowid]
    }

    /// `edge` as the API shows it, nil when one of its rows cannot be named.
    func publicEdge(_ edge: StoredEdge, sourceKey: CollectionKey?, destinationKey: CollectionKey?) -> RelationshipEdge?
    {
        guard let sourceKey else { return nil }
        let destination: RelationshipEdge.Destination
        if let file = edge.file {
            destination = .file(file)
        } else if let destinationKey {
            destination = .row(destinationKey)
        } else {
            return nil
        }
        var result = RelationshipEdge(name: edge.name, source: sourceKey, destination: destination, rules: edge.rules)
        result.isManual = edge.isManual
        return result
    }

    func publicEdge(_ edge: PendingEdge) -> RelationshipEdge {
        var result = RelationshipEdge(
            name: edge.name, source: edge.source, destination: edge.destination, rules: edge.rules)
        result.isManual = edge.isManual
        return result
    }

    private func destinationKey(_ edge: PendingEdge) -> CollectionKey? {
        if case .row(let ck) = edge.destination { return ck }
        return nil
    }

    // MARK: Changes

    private func noteAdded(_ edge: PendingEdge) {
        let key = EdgeKey(name: edge.name, source: edge.source, destination: edge.destination)
        let added = publicEdge(edge)
        if let removed = removedEdges[key], removed.rules == added.rules {
            removedEdges[key] = nil
        } else {
            addedEdges[key] = added
        }
    }

    func noteRemoved(_ edge: StoredEdge, sourceKey: CollectionKey?, destinationKey: CollectionKey?) {
        guard let removed = publicEdge(edge, sourceKey: sourceKey, destinationKey: destinationKey),
            let source = removed.source
        else { return }
        let key = EdgeKey(name: removed.name, source: source, destination: removed.destination)
        if addedEdges.removeValue(forKey: key) == nil {
            removedEdges[key] = removed
        }
    }
}
