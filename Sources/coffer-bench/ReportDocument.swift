/// The `--json` form of a run: every figure and check of the line report, in one document.
struct ReportDocument: Codable, Sendable {
    /// One measured figure.
    struct Figure: Codable, Sendable {
        /// The implementation (`C`, `Coffer`, … or empty for codec-only figures).
        var implementation: String
        /// The workload id.
        var id: String
        /// The settings preset, absent for figures that do not depend on it.
        var settings: String?
        /// The key kind, absent for figures that do not depend on it.
        var key: String?
        /// Operations in the timed region.
        var ops: Int
        /// Operations per second.
        var opsPerSecond: Double
        /// Elapsed seconds (the median for W5).
        var totalSeconds: Double
        /// Elapsed seconds divided by the C baseline's for the same workload, settings and key.
        var ratioVsC: Double?
        /// Extra fields of the figure.
        var extra: [String: String]
    }

    /// The checks one implementation reported under one configuration.
    struct Check: Codable, Sendable {
        /// The implementation.
        var implementation: String
        /// The settings preset.
        var settings: String
        /// The key kind.
        var key: String
        /// The reported figures.
        var figures: SanityFigures
        /// Whether every reported figure matched the expected one.
        var ok: Bool
    }

    /// One configuration as requested, and as each implementation read it back.
    struct Configuration: Codable, Sendable {
        /// The settings preset.
        var settings: String
        /// The key kind.
        var key: String
        /// The page size in effect.
        var pageSize: Int
        /// The page cache in KiB.
        var cacheKiB: Int
        /// The KDF iterations (passphrase keys only).
        var kdfIterations: Int
        /// Whether per-page HMAC is on.
        var hmac: Bool
        /// Settings each implementation read back from its store, by implementation.
        var effective: [String: [String: String]]
    }

    /// The tool name.
    var tool = "coffer-bench"
    /// When the run started (ISO 8601).
    var date: String
    /// The command line.
    var command: String
    /// CPU model and processor count.
    var machine: [String: String]
    /// Library versions.
    var libraries: [String: String] = [:]
    /// N.
    var recordCount: Int
    /// How the figures were timed and what the ratio means.
    var timing: String
    /// The sanity checks that passed.
    var sanity: [String] = []
    /// The checks every implementation must report.
    var expected = SanityFigures()
    /// The configurations of the run.
    var configurations: [Configuration] = []
    /// Every figure, in run order.
    var figures: [Figure] = []
    /// Every implementation's checks.
    var checks: [Check] = []
    /// Peak resident set size of the process in KiB.
    var rssPeakKiB: Int?
}
