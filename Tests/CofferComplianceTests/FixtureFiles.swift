import Crypto
import Foundation

/// The committed `Fixtures/` directory, found from this file's location.
enum FixtureFiles {
    /// `<repository>/Fixtures`.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // CofferComplianceTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// Files under `Fixtures/` that are not fixtures.
    static let excludedFiles: Set<String> = ["README.md", "manifest.json"]
    /// Directories under `Fixtures/` that hold no fixtures.
    static let excludedDirectories: Set<String> = ["generators"]

    /// The committed file at a manifest path.
    static func url(_ path: String) -> URL {
        root.appendingPathComponent(path)
    }

    /// Every fixture file, as paths relative to `Fixtures/`, sorted.
    /// - Throws: when the directory cannot be listed.
    static func fixturePaths() throws -> [String] {
        let rootPath = root.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: rootPath) else {
            throw FixtureFailure("cannot list \(rootPath)")
        }
        var paths: [String] = []
        while let next = enumerator.nextObject() as? String {
            let type = enumerator.fileAttributes?[.type] as? FileAttributeType
            if type == .typeDirectory {
                if excludedDirectories.contains(next) { enumerator.skipDescendants() }
                continue
            }
            if !excludedFiles.contains(next) { paths.append(next) }
        }
        return paths.sorted()
    }

    /// Hex SHA-256 of a file.
    /// - Throws: when the file cannot be read.
    static func sha256(_ url: URL) throws -> String {
        Hex.string(SHA256.hash(data: try Data(contentsOf: url)))
    }

    /// Copies the committed file at `path` into `directory` under `name` (default: its own name).
    /// - Throws: I/O errors.
    @discardableResult
    static func copy(_ path: String, into directory: URL, as name: String? = nil) throws -> URL {
        let target = directory.appendingPathComponent(name ?? (path as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: url(path), to: target)
        return target
    }
}
