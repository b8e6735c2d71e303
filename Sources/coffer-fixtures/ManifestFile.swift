import CofferFixtureSupport
import Foundation

/// `Fixtures/manifest.json`: read, extended with new entries, written back sorted by path.
///
/// Entries already in the file are kept as opaque JSON, so other generators' fields survive.
struct ManifestFile {
    /// The manifest's own format version.
    static let manifestVersion = 1
    static let about =
        "Coffer compliance fixtures. One entry per file under Fixtures/ (README.md, manifest.json and generators/ excepted). "
        + "Keys and passphrases are test data. Files are never regenerated: add new ones instead (see README.md)."

    let url: URL
    private(set) var entries: [JSONValue]

    /// Loads the manifest, or starts an empty one when the file does not exist.
    /// - Throws: when the file exists but is not a manifest.
    init(url: URL) throws {
        self.url = url
        guard FileManager.default.fileExists(atPath: url.path) else {
            entries = []
            return
        }
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        guard case .array(let entries)? = document["entries"] else {
            throw GeneratorError("\(url.path) has no \"entries\" array")
        }
        self.entries = entries
    }

    /// The paths already recorded.
    var paths: Set<String> {
        Set(entries.compactMap { $0["path"]?.stringValue })
    }

    /// Adds entries; refuses any path the manifest already has.
    /// - Throws: ``GeneratorError`` on a duplicate path.
    mutating func append(_ new: [ManifestEntry]) throws {
        var known = paths
        for entry in new {
            guard known.insert(entry.path).inserted else {
                throw GeneratorError("the manifest already has an entry for \(entry.path); fixtures are never replaced")
            }
            entries.append(try JSONValue.from(entry))
        }
    }

    /// Writes the manifest, entries sorted by path.
    /// - Throws: encoding or I/O errors.
    func write() throws {
        let sorted = entries.sorted { ($0["path"]?.stringValue ?? "") < ($1["path"]?.stringValue ?? "") }
        let document = JSONValue.object([
            "manifestVersion": .number(Double(Self.manifestVersion)),
            "about": .string(Self.about),
            "entries": .array(sorted),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Foundation prints an empty array as "[", a blank line, "]"; write "[]" (and "{}") as the Python generators do.
        let text = String(decoding: try encoder.encode(document), as: UTF8.self)
            .replacingOccurrences(of: #"\[\n\s*\n\s*\]"#, with: "[]", options: .regularExpression)
            .replacingOccurrences(of: #"\{\n\s*\n\s*\}"#, with: "{}", options: .regularExpression)
        try Data((text + "\n").utf8).write(to: url, options: .atomic)
    }
}
