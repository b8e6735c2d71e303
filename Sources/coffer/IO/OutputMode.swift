import Synchronization

/// Whether this run of `coffer` speaks JSON (`--json`), decided once from the raw arguments.
///
/// The decision is taken before parsing so that a parse failure of a `--json` command is
/// reported as JSON too, and it is process-wide because the error renderer, the progress
/// reporter and the Ctrl-C handler all change what they write on standard error in JSON mode.
enum OutputMode {
    private static let json = Atomic<Bool>(false)

    /// Whether `--json` was given: errors are one JSON object, progress and notes are silent.
    static var isJSON: Bool { json.load(ordering: .acquiring) }

    /// Records whether `arguments` (without the program name) ask for JSON.
    static func configure(arguments: some Sequence<String>) {
        json.store(requestsJSON(arguments), ordering: .releasing)
    }

    /// Whether `--json` appears among the options, that is before a `--` terminator.
    static func requestsJSON(_ arguments: some Sequence<String>) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "--json" { return true }
        }
        return false
    }
}
