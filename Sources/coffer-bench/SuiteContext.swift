import Foundation

/// What the harness hands a suite for one run: the prepared records, the configuration and a fresh directory.
struct SuiteContext: Sendable {
    /// The records, keys and expected checks, built before any timer started.
    let records: Records
    /// The settings and key kind to use; for `.once` suites, the first configuration of the run.
    let configuration: BenchConfiguration
    /// An empty directory owned by this run of the suite; the harness deletes it afterwards.
    let directory: URL

    /// The bytes to hand to `sqlite3_key` (or the Coffer key) for this configuration's key kind.
    var sqlcipherKey: [UInt8] { BenchKeys.sqlcipherKey(for: configuration.keyKind) }
}
