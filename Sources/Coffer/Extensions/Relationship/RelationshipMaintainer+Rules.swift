import Foundation

/// Running the rules of removed edges, and the files they delete.
extension RelationshipMaintainer {
    /// Runs the queued rules until none is left.
    ///
    /// A rule that removes a row queues that row's edges (through ``didRemove(_:rowid:)``), so a
    /// cascade of any depth finishes here, and a row already gone is skipped, so cycles end.
    /// Edges still waiting for a row point nowhere and are dropped without running their rules.
    func runRules() throws {
        while !events.isEmpty {
            let batch = events
            events.removeAll()
            for event in batch { try apply(event) }
        }
        pending.removeAll()
    }

    private func apply(_ event: RuleEvent) throws {
        let edge = event.edge
        let rules = edge.rules
        switch event.reason {
        case .edgeDeleted:
            return
        case .sourceDeleted:
            if let file = edge.file {
                if rules.contains(.deleteDestinationIfAllSourcesDeleted) {
                    if try !isReferenced(file, name: edge.name) { scheduleDeletion(of: file) }
                } else if rules.contains(.deleteDestinationIfSourceDeleted) {
                    scheduleDeletion(of: file)
                }
                return
            }
            guard let destination = edge.destination, let target = try liveKey(destination, event.destinationKey) else {
                return
            }
            if rules.contains(.deleteDestinationIfAllSourcesDeleted) {
                if try count(sql.countByDestinationName, destination, edge.name) == 0 { try remove(target) }
            } else if rules.contains(.deleteDestinationIfSourceDeleted) {
                try remove(target)
            } else if rules.contains(.notifyIfSourceDeleted) {
                try notify(target, rowid: destination, event: event, reason: .sourceDeleted)
            }
        case .destinationDeleted:
            guard edge.file == nil, let target = try liveKey(edge.source, event.sourceKey) else { return }
            if rules.contains(.deleteSourceIfAllDestinationsDeleted) {
                if try count(sql.countBySourceName, edge.source, edge.name) == 0 { try remove(target) }
            } else if rules.contains(.deleteSourceIfDestinationDeleted) {
                try remove(target)
            } else if rules.contains(.notifyIfDestinationDeleted) {
                try notify(target, rowid: edge.source, event: event, reason: .destinationDeleted)
            }
        }
    }

    /// The key of the row at `rowid` if it still is the row the edge knew (a rowid freed by a
    /// removal can be reused by another row in the same transaction).
    private func liveKey(_ rowid: Int64, _ expected: CollectionKey?) throws -> CollectionKey? {
        guard let row = try context.row(forRowid: rowid, readingObject: false, readingMetadata: false) else {
            return nil
        }
        if let expected, expected != row.collectionKey { return nil }
        return row.collectionKey
    }

    private func count(_ statement: String, _ rowid: Int64, _ name: String) throws -> Int64 {
        guard case .integer(let count)? = try context.tables.scalar(statement, [.integer(rowid), .text(name)]) else {
            return 0
        }
        return count
    }

    private func remove(_ ck: CollectionKey) throws {
        try context.writeTransaction().removeObject(forKey: ck.key, inCollection: ck.collection)
    }

    /// Tells the node at `ck` that an edge went; a replacement object it returns is stored.
    private func notify(
        _ ck: CollectionKey, rowid: Int64, event: RuleEvent, reason: RelationshipEdge.Processing
    ) throws {
        guard let row = try context.row(forRowid: rowid, readingObject: true, readingMetadata: false),
            let node = try row.object.value() as? any RelationshipNode,
            let edge = publicEdge(event.edge, sourceKey: event.sourceKey, destinationKey: event.destinationKey)
        else { return }
        guard let replacement = node.relationshipEdgeDeleted(edge, reason: reason) else { return }
        try context.writeTransaction().replaceObject(replacement, forKey: ck.key, inCollection: ck.collection)
    }

    // MARK: Files

    /// Whether an edge named `name` still points at `file`.
    private func isReferenced(_ file: URL, name: String) throws -> Bool {
        var found = false
        try context.tables.query(sql.selectFilesNamed, [.text(name)]) { row, stop in
            if try storedEdge(row).file == file {
                found = true
                stop = true
            }
        }
        return found
    }

    func scheduleDeletion(of file: URL) {
        guard !scheduledFiles.contains(file), !recordedFiles.contains(where: { $0.file == file }) else { return }
        scheduledFiles.append(file)
    }

    /// Records the files whose rules fired, in the transaction, so that a crash after the commit
    /// cannot leave them behind; a file some edge still points at is kept (another source shares
    /// it, or it was attached again in this transaction, even after an early ``flush``).
    func recordScheduledFiles() throws {
        guard !scheduledFiles.isEmpty || !recordedFiles.isEmpty else { return }
        var referenced: Set<URL> = []
        try context.tables.query(sql.selectAllFiles) { row, _ in
            if let file = try storedEdge(row).file { referenced.insert(file) }
        }
        for (file, record) in recordedFiles where referenced.contains(file) {
            try context.tables.run(sql.deleteFileRecord, [.integer(record)])
        }
        recordedFiles.removeAll { referenced.contains($0.file) }
        for file in scheduledFiles where !referenced.contains(file) {
            let data: Data
            do {
                data = try relationship.fileSerializer.encode(file)
            } catch {
                throw DatabaseError(
                    .serialization, "relationship \"\(name)\" could not encode a file to delete", underlying: error)
            }
            try context.tables.run(sql.insertFileRecord, [.blob(data)])
            guard case .integer(let record)? = try context.tables.scalar("SELECT last_insert_rowid()") else {
                throw DatabaseError(.extensionFailure, "relationship \"\(name)\" could not record a file to delete")
            }
            recordedFiles.append((file, record))
        }
        scheduledFiles.removeAll()
    }

    func ledger() throws -> RelationshipFileLedger {
        try context.registration.sharedValue(named: "fileLedger") { RelationshipFileLedger() }
    }

    var hasFinishedDeletions: Bool {
        guard context.isReadWrite, let ledger = try? ledger() else { return false }
        return !ledger.doneRecords.isEmpty
    }

    /// Removes the records of deletions that finished since an earlier commit.
    func clearFinishedRecords() throws {
        let done = try ledger().doneRecords
        for record in done {
            try context.tables.run(sql.deleteFileRecord, [.integer(record)])
        }
        clearedRecords = done
    }
}
