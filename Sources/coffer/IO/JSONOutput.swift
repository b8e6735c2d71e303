import Foundation

/// Writes `--json` results: one JSON document on standard output, keys sorted, so the output
/// is stable and diffable.
enum JSONOutput {
    /// Encodes `value` and prints it with a trailing newline.
    /// - Throws: ``CLIError`` `.io` when encoding fails.
    static func print(_ value: some Encodable) throws {
        guard let text = text(of: value) else { throw CLIError(.io, "cannot encode the JSON output") }
        StandardStreams.writeOutput(text + "\n")
    }

    /// `value` as one line of JSON with sorted keys, or nil when it cannot be encoded.
    static func text(of value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}
