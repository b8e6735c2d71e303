/// What preferences do around `Database.close(timeout:)`: the close commits their changes first.
extension Preferences: CloseParticipant {
    /// Hands every change to the proxy and waits (at most until `deadline`) for it to commit.
    /// - Throws: the proxy's write error, or ``DatabaseError`` `.busy` at `deadline`.
    func flushBeforeClose(until deadline: ContinuousClock.Instant) throws {
        handOff()
        try proxy.flushBeforeClose(until: deadline)
    }

    /// Whether the database is open; when it is closed, logs (once per database) that `call` did nothing.
    func isUsable(for call: String) -> Bool {
        guard database.gate.isClosed else { return true }
        database.noteUseAfterClose(call)
        return false
    }
}
