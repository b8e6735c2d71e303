import ArgumentParser

/// `--no-progress` and the hidden testing aid `--debug-pause-after N`.
struct ProgressOptions: ParsableArguments {
    @Flag(name: .long, help: "Do not show progress on standard error (--json implies it).")
    var noProgress = false

    @Option(name: .long, help: .hidden)
    var debugPauseAfter: Int64?

    /// A reporter for `label`, styled for where standard error goes: a bar on a terminal, rare
    /// plain lines otherwise, nothing with `--no-progress` or `--json` (whose standard error
    /// holds only a failure's report).
    /// - Parameter errorIsTerminal: Whether standard error is a terminal (tests pass either).
    func reporter(
        label: String, unit: String, total: Int64?, errorIsTerminal: Bool = StandardStreams.errorIsTerminal
    ) -> ProgressReporter {
        ProgressReporter(
            label: label, unit: unit, total: total, style: style(errorIsTerminal: errorIsTerminal),
            pauseAfter: debugPauseAfter)
    }

    /// How progress is shown when standard error is (or is not) a terminal.
    func style(errorIsTerminal: Bool, json: Bool = OutputMode.isJSON) -> ProgressReporter.Style {
        noProgress || json ? .silent : (errorIsTerminal ? .bar : .lines)
    }
}
