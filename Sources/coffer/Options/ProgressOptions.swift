import ArgumentParser

/// `--no-progress` and the hidden testing aid `--debug-pause-after N`.
struct ProgressOptions: ParsableArguments {
    @Flag(name: .long, help: "Do not show progress on standard error.")
    var noProgress = false

    @Option(name: .long, help: .hidden)
    var debugPauseAfter: Int64?

    /// A reporter for `label`, styled for where standard error goes.
    func reporter(label: String, unit: String, total: Int64?) -> ProgressReporter {
        let style: ProgressReporter.Style =
            noProgress ? .silent : (StandardStreams.errorIsTerminal ? .bar : .lines)
        return ProgressReporter(label: label, unit: unit, total: total, style: style, pauseAfter: debugPauseAfter)
    }
}
