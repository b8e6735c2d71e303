import ArgumentParser

/// `--json`: machine-readable output on standard output.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false
}
