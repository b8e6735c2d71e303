/// What a proxy does around `Database.close(timeout:)`: the close commits its
/// pending changes first; afterwards writes do nothing and reads and flushes throw `.closed`.
extension ConnectionProxy: CloseParticipant {
    /// Commits every pending change, waiting at most until `deadline`.
    /// - Throws: the error of a batch that failed (the changes stay pending), or
    ///   ``DatabaseError`` `.busy` when the batch did not commit by `deadline`.
    func flushBeforeClose(until deadline: ContinuousClock.Instant) throws {
        let signal = FlushSignal()
        if let immediate = enqueueFlush({ signal.complete($0) }) { return try immediate.get() }
        guard signal.wait(until: deadline) else {
            throw DatabaseError(
                .busy, "a proxy's pending changes were not committed in time; the database stays open",
                path: database.url.path)
        }
        try signal.result.get()
    }

}
