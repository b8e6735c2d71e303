/// The run-wide knobs that are not SQLCipher settings: workload durations, repetitions, the W9 size and the C
/// baseline's checkpoint and vacuum choices.
struct RunOptions: Sendable {
    /// How the C baseline checkpoints its WAL.
    enum CheckpointMode: String, CaseIterable, Sendable {
        /// SQLite's automatic checkpoint every 1,000 WAL pages, run inline by the committing connection.
        case automatic
        /// No automatic checkpoint (wal_autocheckpoint set to 0), as on Coffer's handles.
        case off
    }

    /// The `auto_vacuum` mode of the C baseline's new files.
    enum AutoVacuumMode: String, CaseIterable, Sendable {
        /// SQLite's default, NONE (BENCHMARKS.md's storage shape).
        case none
        /// FULL, as Coffer sets on every new file.
        case full
    }

    /// Whether the Coffer and CofferRaw suites read and write through `CollectionHandle`s instead of collection
    /// names (the same rows and codecs: the typed layer's cost, counted against a run without it).
    var collectionHandles = false
    /// Whether this is the quick CI run.
    var smoke = false
    /// How long each W10 measurement runs, in seconds.
    var concurrencySeconds: Double = 10
    /// The reader counts of W10, in order.
    var concurrencyReaders = [1, 2, 4]
    /// The number of records W9 writes and reads, and of rows Q1t queries.
    var scaleCount = 1_000_000
    /// How many opens W11 measures per key kind (the median is reported).
    var openRepetitions = 21
    /// The C baseline's checkpoint mode for its single-connection workloads (W1–W5, W9).
    ///
    /// Off by default, as on Coffer's handles, so neither side checkpoints inside a timed transaction. W10 always
    /// uses `.automatic`: the C side has no background checkpointer, and 30 s of commits would otherwise grow the
    /// WAL without bound.
    var cCheckpoint = CheckpointMode.off
    /// The C baseline's `auto_vacuum` mode.
    var cAutoVacuum = AutoVacuumMode.none
    /// Coffer's `walTruncationThreshold` in bytes, or nil for the library default (a diagnostic: a truncating
    /// checkpoint changes the WAL header, which makes SQLite drop every other connection's page cache).
    var cofferWALTruncationBytes: Int?

    /// The `wal_autocheckpoint` field of `cb_settings`: negative keeps SQLite's default.
    var cWALAutocheckpointPages: Int32 { cCheckpoint == .off ? 0 : -1 }
    /// The `auto_vacuum` field of `cb_settings`: negative keeps SQLite's default.
    var cAutoVacuumValue: Int32 { cAutoVacuum == .full ? 1 : -1 }
}
