public import Dispatch
import Foundation

/// Registering and unregistering extensions (YapDatabase's `registerExtension:withName:`).
///
/// Registration is persistent: an extension registered again with the same kind, class
/// version and version tag reuses its tables; a changed `versionTag` repopulates it.
/// Extensions recorded in the file but not registered again before the first write that
/// changes rows are dropped then, using the table names recorded in `yap2`.
extension Database {
    /// Registers `ext` under `name`, creating and populating its tables from existing rows in one write
    /// transaction.
    ///
    /// Blocks until done.
    /// - Complexity: O(rows) when the extension is new or its version changed; O(1) otherwise.
    /// - Throws: ``DatabaseError`` `.extensionFailure` (name taken, a dependency missing, a table
    ///   name taken, or the extension failed — the transaction is rolled back and nothing changes,
    ///   on any connection), `.misuse` inside a write, `.closed` once the database is closed.
    public func register(_ ext: some DatabaseExtension, withName name: String, config: ConnectionConfig? = nil) throws {
        try gate.checkOpen()
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw DatabaseError(
                .extensionFailure, "extension names use letters, digits and underscores only: \"\(name)\"")
        }
        guard extensions.withLock({ $0.entry(named: name) }) == nil else {
            throw DatabaseError(.extensionFailure, "an extension named \"\(name)\" is already registered")
        }
        let connection = try newConnection(config: config)
        do {
            try connection.readWrite { tx in try tx.installExtension(ext, named: name) }
        } catch let error as DatabaseError {
            extensions.withLock { $0.remove(named: name) }
            throw error
        } catch {
            extensions.withLock { $0.remove(named: name) }
            throw DatabaseError(
                .extensionFailure, "registering \"\(name)\" failed: \(error)",
                underlying: error)
        }
    }

    /// Registers `ext` on a background queue; `completion` runs on `completionQueue` (default: a database-owned
    /// queue) with the error, if any.
    ///
    /// Requests run in the order they were made.
    public func asyncRegister(
        _ ext: some DatabaseExtension, withName name: String, config: ConnectionConfig? = nil,
        completionQueue: DispatchQueue? = nil, completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        extensionQueue.async { [self] in
            let failure: (any Error)?
            do {
                try register(ext, withName: name, config: config)
                failure = nil
            } catch {
                failure = error
            }
            if let completion { deliverCompletion(on: completionQueue) { completion(failure) } }
        }
    }

    /// Unregisters the extension named `name`, and every extension depending on it, and drops their tables.
    ///
    /// One write transaction; its changeset lists every extension it unregistered
    /// (``Changeset/unregisteredExtensions``). Does nothing for an unknown name.
    /// - Throws: ``DatabaseError`` from the write transaction (`.closed` once the database is closed).
    public func unregister(extensionNamed name: String) throws {
        let connection = try newConnection()
        try connection.readWrite { tx in try tx.uninstallExtension(named: name) }
    }

    /// Unregisters on a background queue, in order with registration requests.
    public func asyncUnregister(
        extensionNamed name: String, completionQueue: DispatchQueue? = nil,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        extensionQueue.async { [self] in
            let failure: (any Error)?
            do {
                try unregister(extensionNamed: name)
                failure = nil
            } catch {
                failure = error
            }
            if let completion { deliverCompletion(on: completionQueue) { completion(failure) } }
        }
    }

    /// Calls `completion` once every registration request made before this call has finished.
    public func flushExtensionRequests(
        completionQueue: DispatchQueue? = nil, completion: @escaping @Sendable () -> Void
    ) {
        extensionQueue.async { [self] in deliverCompletion(on: completionQueue, completion) }
    }

    /// The extension registered under `name`, if any.
    public func registeredExtension(_ name: String) -> (any DatabaseExtension)? {
        extensions.withLock { $0.entry(named: name)?.implementation }
    }

    /// Every registered extension by name.
    public var registeredExtensions: [String: any DatabaseExtension] {
        extensions.withLock { registry in
            Dictionary(
                uniqueKeysWithValues: registry.entries.map { ($0.name, $0.implementation) })
        }
    }

    /// Registered extensions in registration order (the order hooks run in).
    var extensionEntries: [ExtensionRegistry.Entry] {
        extensions.withLock { $0.entries }
    }

    /// Names recorded in the file but not registered this run, once: the first changing write drops them.
    func takeOrphanedExtensionNames() -> [String] {
        guard !orphanedExtensionsDropped.exchange(true, ordering: .relaxed) else { return [] }
        return extensions.withLock { $0.orphanCandidates.sorted() }
    }
}
