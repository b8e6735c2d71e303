import Foundation
import Testing

/// Every check of every fixture in `Fixtures/manifest.json`: the exact contents, or the exact typed error.
///
/// Each check works on copies; the committed files are verified unchanged before and after.
@Suite struct FixtureComplianceTests {
    @Test(arguments: FixtureCatalog.cases)
    func fixture(_ testCase: FixtureCase) throws {
        let manifest = try FixtureCatalog.manifest.get()
        let entry = try #require(manifest.entry(testCase.path))
        let check = entry.checks[testCase.index]
        let originals = try Self.filesTouched(by: entry, check, in: manifest)
        for (path, sha256) in originals {
            #expect(try FixtureFiles.sha256(FixtureFiles.url(path)) == sha256, "\(path) differs from the manifest")
        }
        switch entry.type {
        case "database": try DatabaseCheck(entry: entry, check: check).run()
        case "keyFile": try KeyFileCheck(entry: entry, check: check).run()
        default: Issue.record("entries of type \(entry.type) have no checks")
        }
        for (path, sha256) in originals {
            #expect(try FixtureFiles.sha256(FixtureFiles.url(path)) == sha256, "\(path) was modified by the check")
        }
    }

    /// The committed files a check reads, with their manifest checksums.
    static func filesTouched(
        by entry: FixtureEntry, _ check: FixtureCheck, in manifest: FixtureManifest
    ) throws -> [(String, String)] {
        var paths = [entry.path] + (entry.sidecars ?? [])
        for key in [check.key ?? entry.key, check.importPlaintext?.key].compactMap({ $0 }) {
            if let path = key.keyFilePath { paths.append(path) }
        }
        return try paths.map { path in
            guard let sha256 = manifest.entry(path)?.sha256 else {
                throw FixtureFailure("\(path) has no manifest entry")
            }
            return (path, sha256)
        }
    }
}
