/// A view's changes as a connection moves from snapshot to snapshot, as an asynchronous
/// sequence (made by ``Connection/viewUpdates(_:)``): what a list UI applies, or what a server
/// pushes to its clients.
///
/// ```swift
/// for try await update in ui.viewUpdates(ViewMappings(groups: ["team"], view: "inbox")) {
///     if update.changes.isReset { reloadEverything(update.mappings) }
///     else { apply(update.changes, showing: update.mappings) }  // rows read on `ui` now match
/// }
/// ```
///
/// Iterating makes the connection a long-lived reader (``Connection/beginLongLivedReadTransaction()``):
/// the first update comes at once, with the mappings at the newest snapshot and no changes;
/// each later one moves the connection to the newest snapshot after commits that changed the
/// view, so every read on the connection sees exactly the rows the update's mappings count.
/// Commits that did not change the view cost a check. Several commits made before the consumer
/// asks for the next update come as one. The sequence ends when the database closes; stopping
/// the iteration leaves the connection in its long-lived read, which
/// ``Connection/endLongLivedReadTransaction()`` ends.
public struct ViewUpdates: AsyncSequence, Sendable {
    /// Each element is one step of the connection's snapshot.
    public typealias Element = ViewUpdate

    let connection: Connection
    let mappings: ViewMappings

    /// Subscribes to the database's commits, before the first update reads.
    public func makeAsyncIterator() -> Iterator {
        Iterator(connection: connection, mappings: mappings, commits: connection.database.changes.makeAsyncIterator())
    }

    /// Iterates the updates of one connection.
    public struct Iterator: AsyncIteratorProtocol {
        let connection: Connection
        var mappings: ViewMappings
        var commits: AsyncStream<Changeset>.Iterator
        var started = false
        /// The snapshot the connection was last moved to.
        var snapshot: UInt64 = 0

        /// The next update, waiting for a commit that changes the view; nil once the database closed.
        /// - Throws: ``DatabaseError`` from reading (the sequence has ended then).
        public mutating func next() async throws -> ViewUpdate? {
            if !started {
                started = true
                return try advance(initial: true)
            }
            while let changeset = await commits.next() {
                guard changeset.snapshot > snapshot, changeset.hasChanges(inView: mappings.viewName) else { continue }
                return try advance(initial: false)
            }
            return nil
        }

        /// Moves the connection to the newest snapshot and the mappings with it.
        private mutating func advance(initial: Bool) throws -> ViewUpdate {
            let changesets = try connection.beginLongLivedReadTransaction()
            let view = mappings.viewName
            let (counts, groups, snapshot) = try connection.read { tx in
                guard let transaction = tx.ext(view, as: ViewTransaction.self) else {
                    return ([String: Int](), [String](), tx.snapshot)
                }
                return (try transaction.groupCounts(), try transaction.groups(), tx.snapshot)
            }
            self.snapshot = snapshot
            guard !initial else {
                mappings.update(groupCounts: counts, allGroups: groups)
                return ViewUpdate(mappings: mappings, changes: .changes(sections: [], rows: []), snapshot: snapshot)
            }
            let records = changesets.flatMap { $0.viewChangeRecords(inView: view) }
            let changes = ViewChanges.advance(&mappings, groupCounts: counts, allGroups: groups, records: records)
            return ViewUpdate(mappings: mappings, changes: changes, snapshot: snapshot)
        }
    }
}

/// One step of a ``ViewUpdates`` sequence.
public struct ViewUpdate: Sendable {
    /// The mappings at the new snapshot: what the list shows now.
    public let mappings: ViewMappings
    /// The changes from the previous update's snapshot (none in the first update), or a reset.
    public let changes: ViewChangeSet
    /// The snapshot the connection now reads.
    public let snapshot: UInt64
}

extension Connection {
    /// The changes of the view `mappings` names, shaped by `mappings`, each time a commit
    /// changes it (see ``ViewUpdates``).
    public func viewUpdates(_ mappings: ViewMappings) -> ViewUpdates {
        ViewUpdates(connection: self, mappings: mappings)
    }
}
