import Synchronization

/// The per-row changes of one committed transaction, shared by every copy of its ``Changeset``.
///
/// Built lazily: a bulk write hands over its rows as it recorded them (a dictionary plus a list of
/// whole-row writes in order), and they are folded into one dictionary the first time someone
/// asks — a sibling catching up, a change query — on that caller's thread, not inside the commit.
/// The public key sets are derived on first use too, so a 100,000-row write nobody looks at pays
/// for neither.
final class ChangedRows: Sendable {
    /// The rows as the transaction recorded them, folded or still in write order.
    ///
    /// Kept for the changeset's life even once folded: the folded rows are published through an
    /// atomic reference rather than behind a lock, as a lock is an allocation and a mutex to set
    /// up and tear down at every commit, and most commits' rows are never folded at all.
    private let folded: [CollectionKey: RowChange]
    private let writes: RowWrites
    /// Whether no row changed (known without folding).
    let isEmpty: Bool
    /// `folded` with `writes` folded in, once someone asked (only when there are writes).
    private let allRows = AtomicLazyReference<Rows>()
    private let objectKeySet = AtomicLazyReference<Keys>()
    private let metadataKeySet = AtomicLazyReference<Keys>()
    private let insertedKeySet = AtomicLazyReference<Keys>()

    private final class Rows: Sendable {
        let changes: [CollectionKey: RowChange]
        init(_ changes: [CollectionKey: RowChange]) { self.changes = changes }
    }

    private final class Keys: Sendable {
        let keys: Set<CollectionKey>
        init(_ keys: Set<CollectionKey>) { self.keys = keys }
    }

    init(folded: [CollectionKey: RowChange], writes: RowWrites) {
        isEmpty = folded.isEmpty && writes.isEmpty
        self.folded = folded
        self.writes = writes
    }

    /// Every changed row and its change.
    ///
    /// Two threads asking first at once may both fold; they publish equal results and both
    /// answer the first one published.
    var changes: [CollectionKey: RowChange] {
        if writes.isEmpty { return folded }
        if let rows = allRows.load() { return rows.changes }
        var changes = folded
        PendingChanges.fold(writes, into: &changes)
        return allRows.storeIfNil(Rows(changes)).changes
    }

    var objectKeys: Set<CollectionKey> {
        keys(objectKeySet) { $0.changesObject }
    }

    var metadataKeys: Set<CollectionKey> {
        keys(metadataKeySet) { $0.changesMetadata }
    }

    var insertedKeys: Set<CollectionKey> {
        keys(insertedKeySet) { $0.inserted }
    }

    private func keys(_ slot: borrowing AtomicLazyReference<Keys>, where included: (RowChange) -> Bool) -> Set<
        CollectionKey
    > {
        if let cached = slot.load() { return cached.keys }
        let changes = changes
        var keys = Set<CollectionKey>(minimumCapacity: changes.count)
        for (ck, change) in changes where included(change) { keys.insert(ck) }
        return slot.storeIfNil(Keys(keys)).keys
    }
}
