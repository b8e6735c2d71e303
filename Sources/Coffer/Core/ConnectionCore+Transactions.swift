import CofferSQLite
import Foundation

/// How transactions begin and end on a connection's queue (YapDatabase's pre/post steps).
extension ConnectionCore {
    func performRead<T>(_ connection: Connection, _ block: (ReadTransaction) throws -> T) throws -> T {
        try TransactionGuard.inside(connection: id, write: false) {
            try withAccess { try performReadInside(connection, block) }
        }
    }

    private func performReadInside<T>(_ connection: Connection, _ block: (ReadTransaction) throws -> T) throws -> T {
        if inLongLivedRead {
            applySettings(connection.status.withLock { $0.config })
            let tx = ReadTransaction(connection: connection, core: self, snapshot: snapshot)
            defer { tx.invalidate() }
            return try block(tx)
        }
        applySettings(try beginRead(connection))
        defer { endRead(connection) }
        let tx = ReadTransaction(connection: connection, core: self, snapshot: snapshot)
        defer { tx.invalidate() }
        return try block(tx)
    }

    /// `BEGIN`, then pin SQLite's snapshot, then catch up to it.
    ///
    /// - Returns: the connection's settings, read under the lock that publishes the pinned
    ///   snapshot (they matter only to the caches, so one lock serves both).
    func beginRead(_ connection: Connection) throws -> ConnectionConfig {
        try mapSQLite { try sqlite.cachedStatement(SQL.beginRead).run() }
        do {
            catchUp(to: try pinReadSnapshot())
        } catch {
            try? mapSQLite { try sqlite.cachedStatement(SQL.rollback).run() }
            throw error
        }
        let snapshot = snapshot
        return connection.status.withLock {
            $0.transactionSnapshot = snapshot
            return $0.config
        }
    }

    func endRead(_ connection: Connection) {
        do {
            try mapSQLite { try sqlite.cachedStatement(SQL.commit).run() }
        } catch {
            try? mapSQLite { try sqlite.cachedStatement(SQL.rollback).run() }
        }
        let snapshot = snapshot
        connection.status.withLock {
            $0.transactionSnapshot = nil
            $0.lastSnapshot = max($0.lastSnapshot, snapshot)
        }
        database.state.withLock { $0.noteConnection(id, at: snapshot) }
    }

    func performReadWrite<T>(_ connection: Connection, _ block: (ReadWriteTransaction) throws -> T) throws -> T {
        try TransactionGuard.inside(connection: id, write: true) {
            try withAccess { try performReadWriteInside(connection, block) }
        }
    }

    private func performReadWriteInside<T>(
        _ connection: Connection, _ block: (ReadWriteTransaction) throws -> T
    ) throws -> T {
        if inLongLivedRead {
            database.logger.warning(
                "Coffer: a read-write transaction implicitly ended a long-lived read transaction",
                metadata: ["connection": "\(id)"])
            stashedChangesets += endLongLivedRead(connection)
        }
        // `BEGIN IMMEDIATE` pins the newest commit, and writers run one at a time, each publishing
        // its snapshot before the next begins: the database's snapshot is the one pinned.
        try mapSQLite { try sqlite.cachedStatement(SQL.beginWrite).run() }
        do {
            try adoptExternalCommits()
        } catch {
            rollbackWrite()
            throw error
        }
        if database.options.multiProcessSupport { totalChangesAtBegin = sqlite.totalChanges }
        let startSnapshot = database.snapshot
        catchUp(to: startSnapshot)
        // One lock both pins the snapshot and reads the settings, which only the caches use.
        applySettings(
            connection.status.withLock {
                $0.transactionSnapshot = startSnapshot
                return $0.config
            })
        defer { connection.status.withLock { $0.transactionSnapshot = nil } }

        let tx = ReadWriteTransaction(connection: connection, core: self, snapshot: startSnapshot)
        // Valid until the commit is done: extensions flush through it before the commit.
        defer { tx.invalidate() }
        let value: T
        do {
            value = try block(tx)
        } catch {
            rollbackWrite(tx)
            throw error
        }
        if let error = tx.doomingError {
            rollbackWrite(tx)
            throw error
        }
        if tx.isRolledBack {
            rollbackWrite(tx)
            return value
        }
        try commit(tx, connection: connection, from: startSnapshot)
        return value
    }

    /// Rolls the SQLite transaction back; the caches may hold values from it, so they go too.
    func rollbackWrite(_ tx: ReadWriteTransaction? = nil) {
        try? mapSQLite { try sqlite.cachedStatement(SQL.rollback).run() }
        flushCaches()
        for context in tx?.extensionContexts ?? [] { context.rollBackMemoryViews() }
        for (_, ext) in tx?.createdExtensionTransactions ?? [] { ext.didRollback() }
    }

    /// Registers the changeset, commits, publishes the new snapshot, and tells everyone.
    private func commit(_ tx: ReadWriteTransaction, connection: Connection, from start: UInt64) throws {
        let extensionChanges: [String: any Sendable]
        do {
            extensionChanges = try tx.flushExtensions()
            // The flag is read here first: the call costs more than the check once they are dropped.
            if !tx.changes.isEmpty && !database.orphanedExtensionsDropped.load(ordering: .relaxed) {
                try tx.dropOrphanedExtensions()
            }
        } catch {
            rollbackWrite(tx)
            throw error
        }
        // Moved out, not copied: nothing reads the transaction's changes after its flushes.
        var changes = PendingChanges()
        swap(&changes, &tx.changes)
        let memoryChanged = tx.extensionContexts.contains { $0.hasMemoryChanges }
        guard
            !changes.isEmpty || tx.hasNotificationCustomObject || !extensionChanges.isEmpty
                || !tx.unregisteredImplementations.isEmpty
                || !tx.registeredExtensions.isEmpty || memoryChanged
        else {
            do {
                try mapSQLite { try sqlite.cachedStatement(SQL.commit).run() }
            } catch {
                rollbackWrite(tx)
                throw error
            }
            for (_, ext) in tx.createdExtensionTransactions { ext.didCommit() }
            tx.runCompletions(in: database)
            return
        }
        let newSnapshot = start + 1
        let changeset = Changeset(
            // Consumed: a borrowed `PendingChanges` was copied whole to read its fields.
            snapshot: newSnapshot, connectionID: id, connectionName: connection.name, changes: consume changes,
            customObject: tx.hasNotificationCustomObject ? tx.notificationCustomObject : nil,
            extensionChanges: extensionChanges,
            registeredExtensions: tx.registeredExtensions.isEmpty ? [] : Set(tx.registeredExtensions.map(\.name)),
            unregisteredExtensions: tx.unregisteredExtensions)
        database.addPending(changeset)
        do {
            // Before the SQLite commit: a reader that pins the new snapshot finds the rows there.
            for context in tx.extensionContexts { try context.commitMemoryViews(as: newSnapshot) }
            for registration in tx.registeredExtensions {
                registration.firstSnapshot.store(newSnapshot, ordering: .releasing)
            }
            // Only multi-process support tells other processes a commit that changed rows apart.
            let changedRows = database.options.multiProcessSupport && sqlite.totalChanges != totalChangesAtBegin
            try recordSnapshotForOtherProcesses(newSnapshot, changedRows: changedRows)
            try database.snapshotGate.commit {
                try mapSQLite { try sqlite.cachedStatement(SQL.commit).run() }
                database.publish(changeset, by: id, changedRows: changedRows)
            }
        } catch {
            database.removePending(snapshot: newSnapshot)
            rollbackWrite(tx)
            throw error
        }
        snapshot = newSnapshot
        for (_, ext) in tx.createdExtensionTransactions { ext.didCommit() }
        for (name, implementation) in tx.unregisteredImplementations {
            implementation.didUnregister(registeredName: name)
        }
        database.announce(changeset, by: id)
        tx.runCompletions(in: database)
    }

    // MARK: Long-lived read transactions

    func beginLongLivedRead(_ connection: Connection) throws -> [Changeset] {
        var changesets = stashedChangesets
        stashedChangesets = []
        if inLongLivedRead {
            changesets += endLongLivedRead(connection)
        }
        // The long-lived transaction keeps the handle in use (and the access gate held) until it ends.
        try enterAccess()
        let before = snapshot
        do {
            try mapSQLite { try sqlite.cachedStatement(SQL.beginRead).run() }
        } catch {
            leaveAccess()
            throw error
        }
        do {
            let target = try pinReadSnapshot()
            if target > before {
                changesets += catchUp(to: target)
            }
        } catch {
            try? mapSQLite { try sqlite.cachedStatement(SQL.rollback).run() }
            leaveAccess()
            throw error
        }
        inLongLivedRead = true
        let snapshot = snapshot
        connection.status.withLock {
            $0.transactionSnapshot = snapshot
            $0.isLongLived = true
        }
        database.state.withLock { $0.noteConnection(id, at: snapshot) }
        return changesets
    }

    func endLongLivedRead(_ connection: Connection) -> [Changeset] {
        guard inLongLivedRead else { return [] }
        inLongLivedRead = false
        endRead(connection)
        leaveAccess()
        connection.status.withLock { $0.isLongLived = false }
        let changesets = catchUp(to: database.snapshot)
        let snapshot = snapshot
        database.state.withLock { $0.noteConnection(id, at: snapshot) }
        return changesets
    }
}
