/// How often a suite runs.
enum SuiteScope: Sendable {
    /// Under every selected configuration (settings × key kind), in its own database.
    case perConfiguration
    /// Once per run, independent of the SQLCipher settings (codec-only workloads).
    case once
}
