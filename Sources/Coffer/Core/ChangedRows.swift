/// The per-row changes of one committed transaction, shared by every copy of its ``Changeset``.
///
/// Built lazily: a bulk write hands over its rows as it recorded them (a dictionary plus a list of
/// whole-row writes in order), and they are folded into one dictionary the first time someone
/// asks — a sibling catching up, a change query — on that caller's thread, not inside the commit.
/// The public key sets are derived on first use too, so a 100,000-row write nobody looks at pays
/// for neither.
final class ChangedRows: Sendable {
    // One lock for the rows and the sets derived from them: each lock is an allocation and a
    // mutex to set up at every commit, and neither is contended.
    private let state: Locked<State>
    /// Whether no row changed (known without folding).
    let isEmpty: Bool

    private struct State {
        var folded: [CollectionKey: RowChange]
        var writes: [(key: CollectionKey, change: RowChange)]
        var derived = DerivedSets()
    }

    private struct DerivedSets {
        var objectKeys: Set<CollectionKey>?
        var metadataKeys: Set<CollectionKey>?
        var insertedKeys: Set<CollectionKey>?
    }

    init(folded: [CollectionKey: RowChange], writes: [(key: CollectionKey, change: RowChange)]) {
        isEmpty = folded.isEmpty && writes.isEmpty
        state = Locked(State(folded: folded, writes: writes))
    }

    /// Every changed row and its change.
    var changes: [CollectionKey: RowChange] {
        state.withLock { state in
            if !state.writes.isEmpty {
                PendingChanges.fold(state.writes, into: &state.folded)
                state.writes = []
            }
            return state.folded
        }
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
        if let cached = state.withLock({ $0.derived[keyPath: slot] }) { return cached }
        let changes = changes
        var keys = Set<CollectionKey>(minimumCapacity: changes.count)
        for (ck, change) in changes where included(change) { keys.insert(ck) }
        state.withLock { $0.derived[keyPath: slot] = keys }
        return keys
    }
}
