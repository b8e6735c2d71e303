import Crypto
import Foundation

/// Where one generator run builds its files: a private staging directory first, copied into
/// `Fixtures/` only when every file was made, and never over an existing file.
final class FixtureStage {
    /// `Fixtures/`.
    let root: URL
    /// The staging directory; removed when the run ends.
    let staging: URL
    /// A scratch directory for working databases that are not fixtures.
    let scratch: URL
    private(set) var staged: [String] = []

    /// Creates the staging area; refuses when any of `folders` already exists under `root`.
    /// - Throws: ``GeneratorError`` when a folder exists (fixtures are never regenerated).
    init(root: URL, folders: [String]) throws {
        self.root = root
        for folder in folders where FileManager.default.fileExists(atPath: root.appendingPathComponent(folder).path) {
            throw GeneratorError(
                "\(root.appendingPathComponent(folder).path) exists; fixtures are never regenerated — choose a new folder (e.g. --folder v2)"
            )
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-fixtures-\(UUID().uuidString)")
        staging = base.appendingPathComponent("stage")
        scratch = base.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: staging.deletingLastPathComponent())
    }

    /// The staging location of the fixture `relativePath`; each path can be staged once.
    /// - Throws: ``GeneratorError`` when the path was already staged.
    func url(_ relativePath: String) throws -> URL {
        guard !staged.contains(relativePath) else { throw GeneratorError("\(relativePath) was staged twice") }
        staged.append(relativePath)
        let url = staging.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url
    }

    /// A fresh directory under the scratch area.
    /// - Throws: I/O errors.
    func scratchDirectory(_ name: String) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The staged file of a fixture, for deriving damaged copies from it.
    func stagedURL(_ relativePath: String) -> URL {
        staging.appendingPathComponent(relativePath)
    }

    /// Copies every staged file into `Fixtures/`, failing on any file that already exists.
    /// - Throws: ``GeneratorError`` or I/O errors; files copied before a failure stay (delete the folder and rerun).
    func commit() throws {
        for path in staged {
            let target = root.appendingPathComponent(path)
            guard !FileManager.default.fileExists(atPath: target.path) else {
                throw GeneratorError("\(target.path) exists; refusing to overwrite a fixture")
            }
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: staging.appendingPathComponent(path), to: target)
        }
    }

    /// Hex SHA-256 of a file.
    /// - Throws: when the file cannot be read.
    static func sha256(of url: URL) throws -> String {
        Hex.string(SHA256.hash(data: try Data(contentsOf: url)))
    }

    /// The size of a file in bytes.
    /// - Throws: when the file cannot be read.
    static func size(of url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }
}
