/// Something that lives beside a database and takes part in `Database.close(timeout:)`: a
/// ``ConnectionProxy`` or ``Preferences``, which hold writes in memory and must commit them
/// before the file closes, and the sequences that would otherwise wait for commits that can no
/// longer come (preference updates, observations), which end once it closed.
protocol CloseParticipant: AnyObject, Sendable {
    /// Commits every pending write, waiting at most until `deadline`.
    /// - Throws: the error of a write that failed (the writes stay pending), or ``DatabaseError``
    ///   `.busy` when they were not committed by `deadline`.
    func flushBeforeClose(until deadline: ContinuousClock.Instant) throws

    /// Ends what waits for commits: the database closed, and nothing can commit any more.
    func didClose()
}

extension CloseParticipant {
    func flushBeforeClose(until deadline: ContinuousClock.Instant) throws {}
    func didClose() {}
}

/// The live participants of one database, held weakly: a participant released without a flush
/// has nothing left for the close to do (its queued batch holds what it still has to write).
struct CloseParticipants {
    private struct Entry {
        weak var participant: (any CloseParticipant)?
    }

    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Adds `participant`, forgetting entries whose participant is gone.
    mutating func add(_ participant: any CloseParticipant) {
        entries = entries.filter { $0.value.participant != nil }
        entries[ObjectIdentifier(participant)] = Entry(participant: participant)
    }

    /// The participants still alive.
    var live: [any CloseParticipant] { entries.values.compactMap(\.participant) }
}
