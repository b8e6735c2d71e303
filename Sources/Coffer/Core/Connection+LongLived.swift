/// Long-lived read transactions (YapDatabase's `beginLongLivedReadTransaction`).
///
/// While one is open, every `read` on this connection sees the same snapshot, so a UI can
/// keep drawing from a stable state and move forward only when it chooses to. Each step
/// returns the changesets between the old and the new snapshot, for updating the UI.
extension Connection {
    /// Moves the connection to the latest snapshot and keeps it there until the next call.
    ///
    /// Ends the current long-lived transaction first, if any. A read-write transaction on this
    /// connection ends it implicitly (with a warning in the log); the changesets it collected
    /// are returned by the next call.
    /// - Returns: the changesets from the previous position to the new one, in commit order.
    /// - Throws: `misuse` inside a transaction of this connection; any ``DatabaseError`` from
    ///   reading (`.closed` once the database is closed).
    public func beginLongLivedReadTransaction() throws -> [Changeset] {
        try TransactionGuard.checkCanBegin(connection: id, write: false)
        return try queue.sync { try core.beginLongLivedRead(self) }
    }

    /// Ends the long-lived read transaction and moves to the latest snapshot.
    /// - Returns: the changesets committed since the long-lived transaction began.
    /// - Throws: `misuse` inside a transaction of this connection; ``DatabaseError`` `.closed`
    ///   once the database is closed (the close ended the transaction).
    @discardableResult
    public func endLongLivedReadTransaction() throws -> [Changeset] {
        try TransactionGuard.checkCanBegin(connection: id, write: false)
        try database.gate.checkOpen()
        return queue.sync { core.endLongLivedRead(self) }
    }

    /// Whether a long-lived read transaction is open.
    public var isInLongLivedReadTransaction: Bool {
        status.withLock { $0.isLongLived }
    }
}
