import Foundation

/// A ``Relationship``'s queries and manual edges inside one transaction, from
/// `tx.extension("relationship", as: RelationshipTransaction.self)`.
///
/// Queries see the edges as the transaction's writes left them, rules not yet run: in a write
/// transaction, removing a row removes its edges at once, and the rows its rules delete go at
/// the commit (or at ``flush()``). Filters combine: a nil filter matches every edge.
/// Valid only inside its transaction.
public final class RelationshipTransaction {
    private weak var maintainer: RelationshipMaintainer?

    init(maintainer: RelationshipMaintainer) {
        self.maintainer = maintainer
    }

    /// The edges matching every filter given, in the order they were stored; edges waiting for
    /// a row that does not exist yet come last.
    /// - Throws: ``DatabaseError`` `.misuse` after the transaction ended, `.extensionFailure`
    ///   when the extension is not part of the transaction's snapshot, `.serialization` for a
    ///   stored file destination the serializer cannot read.
    public func edges(
        name: String? = nil, source: CollectionKey? = nil, destination: RelationshipEdge.Destination? = nil
    ) throws -> [RelationshipEdge] {
        let maintainer = try live()
        return try maintainer.edges(name: name, source: source, destination: destination?.normalized)
    }

    /// Calls `body` with each edge matching every filter given; set `stop` to end early.
    ///
    /// The matching edges are read before the first call, so `body` may query the extension
    /// again (nested enumeration) or write.
    /// - Throws: as ``edges(name:source:destination:)``, or what `body` throws.
    public func enumerateEdges(
        name: String? = nil, source: CollectionKey? = nil, destination: RelationshipEdge.Destination? = nil,
        _ body: (_ edge: RelationshipEdge, _ stop: inout Bool) throws -> Void
    ) throws {
        var stop = false
        for edge in try edges(name: name, source: source, destination: destination) {
            try body(edge, &stop)
            if stop { return }
        }
    }

    /// The number of edges matching every filter given.
    /// - Throws: as ``edges(name:source:destination:)``.
    public func edgeCount(
        name: String? = nil, source: CollectionKey? = nil, destination: RelationshipEdge.Destination? = nil
    ) throws -> Int {
        let maintainer = try live()
        return try maintainer.edgeCount(name: name, source: source, destination: destination?.normalized)
    }

    /// Adds `edge`, which names its ``RelationshipEdge/source``; adding an edge that exists (same
    /// name, source and destination) replaces its rules.
    ///
    /// A row missing now may still be written later in the transaction; an edge whose row
    /// is missing at the commit is dropped.
    /// - Throws: ``DatabaseError`` `.misuse` without a source, in a read-only transaction or
    ///   after it ended.
    public func addEdge(_ edge: RelationshipEdge) throws {
        let maintainer = try live()
        try maintainer.addManualEdge(edge)
    }

    /// Removes the manual edge with `edge`'s name, source and destination, running its rules as `processing` says.
    ///
    /// An edge that does not exist is ignored. Node edges change only when the node is written.
    /// - Throws: ``DatabaseError`` `.misuse` without a source, in a read-only transaction or
    ///   after it ended.
    public func removeEdge(_ edge: RelationshipEdge, processing: RelationshipEdge.Processing) throws {
        let maintainer = try live()
        try maintainer.removeManualEdge(edge, processing: processing)
    }

    /// Runs the rules the transaction's writes set off now rather than at the commit, so that
    /// the rows they delete are gone for the rest of the transaction.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or after it ended, or what
    ///   removing the rows throws.
    public func flush() throws {
        let maintainer = try live()
        _ = try maintainer.context.writeTransaction()
        try maintainer.flushPendingChanges()
    }

    private func live() throws -> RelationshipMaintainer {
        guard let maintainer else {
            throw DatabaseError(.misuse, "a relationship transaction was used after its transaction ended")
        }
        _ = try maintainer.context.transaction()
        guard try maintainer.context.isRegisteredInSnapshot() else {
            throw DatabaseError(
                .extensionFailure,
                "relationship \"\(maintainer.name)\" is not registered in this transaction's snapshot")
        }
        return maintainer
    }
}

@available(*, unavailable, message: "valid only inside its transaction, on its connection's queue")
extension RelationshipTransaction: Sendable {}

/// Queries and manual edges.
extension RelationshipMaintainer {
    func edges(
        name: String?, source: CollectionKey?, destination: RelationshipEdge.Destination?
    ) throws -> [RelationshipEdge] {
        var result: [RelationshipEdge] = []
        if let (sourceRowid, destinationRowid) = try resolvedFilters(source: source, destination: destination) {
            var file: URL?
            if case .file(let url) = destination { file = url }
            var stored: [StoredEdge] = []
            let query = sql.select(
                name: name, source: sourceRowid, destination: destinationRowid, filesOnly: file != nil)
            try context.tables.query(query) { row, _ in
                let edge = try storedEdge(row)
                if file == nil || edge.file == file { stored.append(edge) }
            }
            for edge in stored {
                let sourceKey = try source ?? key(forRowid: edge.source)
                var destinationKey: CollectionKey?
                if case .row(let ck) = destination {
                    destinationKey = ck
                } else if let rowid = edge.destination {
                    destinationKey = try key(forRowid: rowid)
                }
                if let found = publicEdge(edge, sourceKey: sourceKey, destinationKey: destinationKey) {
                    result.append(found)
                }
            }
        }
        for waiting in pending.values.joined()
        where (name == nil || waiting.name == name) && (source == nil || waiting.source == source)
            && (destination == nil || waiting.destination == destination)
        {
            result.append(publicEdge(waiting))
        }
        return result
    }

    func edgeCount(name: String?, source: CollectionKey?, destination: RelationshipEdge.Destination?) throws -> Int {
        if case .file = destination { return try edges(name: name, source: source, destination: destination).count }
        var count = 0
        if let (sourceRowid, destinationRowid) = try resolvedFilters(source: source, destination: destination),
            case .integer(let stored)? = try context.tables.scalar(
                sql.count(name: name, source: sourceRowid, destination: destinationRowid))
        {
            count = Int(stored)
        }
        for waiting in pending.values.joined()
        where (name == nil || waiting.name == name) && (source == nil || waiting.source == source)
            && (destination == nil || waiting.destination == destination)
        {
            count += 1
        }
        return count
    }

    /// The rowids the row filters name; nil when a named row does not exist (no stored edge
    /// can match).
    private func resolvedFilters(
        source: CollectionKey?, destination: RelationshipEdge.Destination?
    ) throws -> (Int64?, Int64?)? {
        var sourceRowid: Int64?
        if let source {
            guard let found = try rowid(source) else { return nil }
            sourceRowid = found
        }
        var destinationRowid: Int64?
        if case .row(let ck) = destination {
            guard let found = try rowid(ck) else { return nil }
            destinationRowid = found
        }
        return (sourceRowid, destinationRowid)
    }

    func addManualEdge(_ edge: RelationshipEdge) throws {
        _ = try context.writeTransaction()
        let source = try manualSource(edge, "add")
        try add(
            PendingEdge(
                name: edge.name, source: source, destination: edge.destination.normalized, rules: edge.rules,
                isManual: true), sourceRowid: nil)
    }

    func removeManualEdge(_ edge: RelationshipEdge, processing: RelationshipEdge.Processing) throws {
        _ = try context.writeTransaction()
        let source = try manualSource(edge, "remove")
        let destination = edge.destination.normalized
        let wanted = PendingEdge(
            name: edge.name, source: source, destination: destination, rules: edge.rules, isManual: true)
        if !pending.isEmpty {
            dropPending {
                $0.isManual && $0.name == wanted.name && $0.source == source && $0.destination == destination
            }
        }
        guard let sourceRowid = try rowid(source) else { return }
        var destinationRowid: Int64?
        var destinationKey: CollectionKey?
        if case .row(let ck) = destination {
            guard let found = try rowid(ck) else { return }
            destinationRowid = found
            destinationKey = ck
        }
        guard let stored = try findManual(wanted, source: sourceRowid, destination: destinationRowid) else { return }
        try context.tables.run(sql.deleteEdge, [.integer(stored.id)])
        noteRemoved(stored, sourceKey: source, destinationKey: destinationKey)
        if processing != .edgeDeleted {
            events.append(
                RuleEvent(
                    edge: stored, reason: processing, sourceKey: source, destinationKey: destinationKey, cause: nil))
        }
    }

    private func manualSource(_ edge: RelationshipEdge, _ verb: String) throws -> CollectionKey {
        guard let source = edge.source else {
            throw DatabaseError(
                .misuse, "relationship \"\(name)\" cannot \(verb) edge \"\(edge.name)\" without a source")
        }
        return source
    }
}

extension RelationshipTransaction {
    /// The number of file deletions recorded and not yet known done (for tests).
    func recordedFileDeletionCount() throws -> Int {
        let maintainer = try live()
        guard
            case .integer(let count)? = try maintainer.context.tables.scalar(
                "SELECT count(*) FROM \(maintainer.sql.files)")
        else { return 0 }
        return Int(count)
    }
}
