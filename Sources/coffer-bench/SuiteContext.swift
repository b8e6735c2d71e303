import Foundation

/// What the harness hands a suite for one run: the prepared records, the configuration and a fresh directory.
struct SuiteContext: Sendable {
    /// The records, keys and expected checks, built before any timer started.
    let records: Records
    /// The settings and key kind to use; for `.once` suites, the first configuration of the run.
    let configuration: BenchConfiguration
    /// An empty directory owned by this run of the suite; the harness deletes it afterwards.
    let directory: URL
    /// Run-wide knobs (durations, repetitions, the C baseline's checkpoint mode).
    var options = RunOptions()
    /// The W9 records (N = `options.scaleCount`), built before any timer started when W9 is selected.
    var scaleRecords: Records?
    /// Figures already measured in this run for this configuration (and the run-once figures), keyed
    /// `<implementation>:<id>` (`C:W1`) or the bare id for codec-only figures (`JSONENC`).
    var earlier: [String: WorkloadResult] = [:]

    /// The bytes to hand to SQLCipher's key call (or the Coffer key) for this configuration's key kind.
    var sqlcipherKey: [UInt8] { BenchKeys.sqlcipherKey(for: configuration.keyKind) }
}
