import Foundation
import Testing

/// The manifest, loaded once, and the test cases it defines: one per check of every entry.
enum FixtureCatalog {
    /// The parsed manifest, or why it could not be read.
    static let manifest: Result<FixtureManifest, FixtureFailure> = {
        do {
            let data = try Data(contentsOf: FixtureFiles.url("manifest.json"))
            return .success(try JSONDecoder().decode(FixtureManifest.self, from: data))
        } catch {
            return .failure(FixtureFailure("Fixtures/manifest.json cannot be read: \(error)"))
        }
    }()

    /// Every check of every entry; empty when the manifest does not load (a separate test fails then).
    static var cases: [FixtureCase] {
        guard case .success(let manifest) = manifest else { return [] }
        return manifest.entries.flatMap { entry in
            entry.checks.indices.map { FixtureCase(path: entry.path, index: $0, name: entry.checks[$0].name) }
        }
    }
}

/// One check of one fixture, as a test argument.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    var path: String
    var index: Int
    var name: String

    var testDescription: String { "\(path): \(name)" }
}
