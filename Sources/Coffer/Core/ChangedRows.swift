/// The per-row changes of one committed transaction, shared by every copy of its ``Changeset``.
///
/// The public key sets are derived on first use: a bulk write of 100,000 rows then pays for one
/// dictionary while it runs, and nobody pays for three more sets unless they ask.
final class ChangedRows: Sendable {
    let changes: [CollectionKey: RowChange]
    private let derived = Locked(DerivedSets())

    private struct DerivedSets {
        var objectKeys: Set<CollectionKey>?
        var metadataKeys: Set<CollectionKey>?
        var insertedKeys: Set<CollectionKey>?
    }

    init(_ changes: [CollectionKey: RowChange]) {
        self.changes = changes
    }

    var objectKeys: Set<CollectionKey> {
        keys(\.objectKeys) { $0.changesObject }
    }

    var metadataKeys: Set<CollectionKey> {
        keys(\.metadataKeys) { $0.changesMetadata }
    }

    var insertedKeys: Set<CollectionKey> {
        keys(\.insertedKeys) { $0.inserted }
    }

    private func keys(
        _ slot: WritableKeyPath<DerivedSets, Set<CollectionKey>?>, where included: (RowChange) -> Bool
    ) -> Set<CollectionKey> {
        if let cached = derived.withLock({ $0[keyPath: slot] }) { return cached }
        var keys = Set<CollectionKey>(minimumCapacity: changes.count)
        for (ck, change) in changes where included(change) { keys.insert(ck) }
        derived.withLock { $0[keyPath: slot] = keys }
        return keys
    }
}
