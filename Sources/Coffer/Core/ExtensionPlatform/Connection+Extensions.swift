/// Reaching an extension's state on a connection (YapDatabase's `-[YapDatabaseConnection ext:]`).
extension Connection {
    /// Runs `body` on this connection's queue with its state of the extension registered as
    /// `name`, made if the connection has not used the extension yet.
    ///
    /// For what an extension keeps per connection rather than per transaction: caches and their
    /// statistics, settings of the connection's own. `body` must not keep the state.
    /// - Throws: ``DatabaseError`` `.extensionFailure` when no extension is registered under
    ///   `name` or its state is of another type, `.closed` once the database is closed, or what
    ///   `body` throws.
    public func withExtensionState<State, Result>(
        _ name: String, as type: State.Type, _ body: (State) throws -> Result
    ) throws -> Result {
        try database.gate.checkOpen()
        return try onQueue {
            guard let entry = database.extensionEntries.first(where: { $0.name == name }) else {
                throw DatabaseError(.extensionFailure, "no extension is registered as \"\(name)\"")
            }
            let state = core.extensionState(for: entry)
            guard let typed = state as? State else {
                throw DatabaseError(
                    .extensionFailure,
                    "extension \"\(name)\"'s state is a \(Swift.type(of: state)), not a \(State.self)")
            }
            return try body(typed)
        }
    }
}
