/// A non-persistent extension's memory tables, as the transaction sees them.
///
/// The context opens each table's view once per transaction and closes it with the transaction:
/// a read view at the transaction's snapshot, or in a read-write transaction the one write view,
/// whose changes are committed under the snapshot the database commit publishes (and taken
/// back if that commit fails).
extension ExtensionContext {
    /// The contents of `table` at this transaction's snapshot (a long-lived read keeps seeing them).
    ///
    /// In a read-write transaction this is the state before the transaction; read through
    /// ``writeView(of:)`` to see the transaction's own changes.
    /// - Throws: ``DatabaseError`` `.misuse` once the transaction ended, `.extensionFailure` when
    ///   the table cannot serve the snapshot.
    public func readView<Key, Value>(of table: MemoryTable<Key, Value>) throws -> MemoryTable<Key, Value>.ReadView {
        _ = try transaction()
        let id = ObjectIdentifier(table)
        if let view = memoryViews.read[id] as? MemoryTable<Key, Value>.ReadView { return view }
        let view = try mapMemoryTable { () throws(MemoryTableError) in try table.beginRead(at: snapshot) }
        memoryViews.read[id] = view
        return view
    }

    /// The one write view of `table` in this read-write transaction: it reads through its own
    /// changes, which commit or roll back with the transaction.
    /// - Throws: ``DatabaseError`` `.misuse` in a read-only transaction or once it ended,
    ///   `.extensionFailure` when the table refuses the write.
    public func writeView<Key, Value>(of table: MemoryTable<Key, Value>) throws -> MemoryTable<Key, Value>.WriteView {
        _ = try writeTransaction()
        let id = ObjectIdentifier(table)
        if let view = memoryViews.write[id] as? MemoryTable<Key, Value>.WriteView { return view }
        let view = try mapMemoryTable { () throws(MemoryTableError) in try table.beginWrite(at: snapshot) }
        memoryViews.write[id] = view
        return view
    }

    // MARK: The transaction's side

    /// Whether a write view holds changes, which the commit must publish under a new snapshot.
    var hasMemoryChanges: Bool {
        memoryViews.write.values.contains { $0.hasPendingChanges }
    }

    /// Publishes every write view's changes as `version`, just before the SQLite commit.
    func commitMemoryViews(as version: UInt64) throws {
        for view in memoryViews.write.values {
            try mapMemoryTable { () throws(MemoryTableError) in try view.commit(as: version) }
        }
    }

    /// Takes back what the write views committed or hold (the transaction rolled back).
    func rollBackMemoryViews() {
        for view in memoryViews.write.values { view.rollback() }
        memoryViews.write = [:]
    }

    /// Ends every view (the transaction ended): committed changes stay, pending ones are dropped.
    func endMemoryViews() {
        for view in memoryViews.read.values { view.end() }
        for view in memoryViews.write.values { view.end() }
        memoryViews = MemoryViews()
    }

    private func mapMemoryTable<T>(_ body: () throws(MemoryTableError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DatabaseError(.extensionFailure, "memory table of extension \"\(registeredName)\": \(error)")
        }
    }
}

/// The memory-table views a context opened, by table.
struct MemoryViews {
    var read: [ObjectIdentifier: any EndableMemoryView] = [:]
    var write: [ObjectIdentifier: any CommittableMemoryView] = [:]
}

/// A view the context ends with its transaction.
protocol EndableMemoryView: AnyObject {
    func end()
}

/// A write view the context commits or rolls back with its transaction.
protocol CommittableMemoryView: EndableMemoryView {
    var hasPendingChanges: Bool { get }
    func commit(as version: UInt64) throws(MemoryTableError)
    func rollback()
}

extension MemoryTable.ReadView: EndableMemoryView {}
extension MemoryTable.WriteView: CommittableMemoryView {}
