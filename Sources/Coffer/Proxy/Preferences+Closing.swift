/// What preferences do around `Database.close(timeout:)`: the close commits their changes first.
extension Preferences: CloseParticipant {
    /// Hands every change to the proxy and waits (at most until `deadline`) for it to commit.
    /// - Throws: the proxy's write error, or ``DatabaseError`` `.busy` at `deadline`.
    func flushBeforeClose(until deadline: ContinuousClock.Instant) throws {
        handOff()
        try proxy.flushBeforeClose(until: deadline)
    }

    /// Ends ``changes`` and every ``updates(for:)`` sequence: no change can come any more.
    func didClose() {
        let (streams, sinks) = state.withLock { state in
            (Array(state.streams.values), Array(state.updateSinks.sinks.values))
        }
        for stream in streams { stream.finish() }
        for sink in sinks { sink.finish() }
    }

}
