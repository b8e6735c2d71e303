import Foundation

/// Writes `--json` results: one JSON document on standard output, keys sorted, so the output
/// is stable and diffable.
enum JSONOutput {
    /// Encodes `value` and prints it with a trailing newline.
    /// - Throws: ``CLIError`` `.io` when encoding fails.
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw CLIError(.io, "cannot encode the JSON output")
        }
        StandardStreams.writeOutput(String(decoding: data, as: UTF8.self) + "\n")
    }
}
