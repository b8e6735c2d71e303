import Foundation
import Testing

/// The manifest and the directory agree: one entry per file, one file per entry, checksums
/// match, and every reference between entries resolves.
@Suite struct ManifestTests {
    private func manifest() throws -> FixtureManifest {
        try FixtureCatalog.manifest.get()
    }

    @Test func manifestLoadsAndHasChecks() throws {
        let manifest = try manifest()
        #expect(manifest.manifestVersion == 1)
        #expect(!manifest.entries.isEmpty)
        #expect(!FixtureCatalog.cases.isEmpty)
        let paths = manifest.entries.map(\.path)
        #expect(Set(paths).count == paths.count, "duplicate entries")
    }

    @Test func everyFileHasAnEntry() throws {
        let listed = Set(try manifest().entries.map(\.path))
        let unlisted = try FixtureFiles.fixturePaths().filter { !listed.contains($0) }
        #expect(unlisted.isEmpty, "files without a manifest entry: \(unlisted)")
    }

    @Test func everyEntryHasAFile() throws {
        let missing = try manifest().entries.map(\.path).filter {
            !FileManager.default.fileExists(atPath: FixtureFiles.url($0).path)
        }
        #expect(missing.isEmpty, "manifest entries without a file: \(missing)")
    }

    @Test func committedFilesMatchTheirChecksums() throws {
        for entry in try manifest().entries {
            let url = FixtureFiles.url(entry.path)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            #expect(try FixtureFiles.sha256(url) == entry.sha256, "\(entry.path): SHA-256")
            let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int
            #expect(size == entry.size, "\(entry.path): size")
        }
    }

    @Test func referencesResolve() throws {
        let manifest = try manifest()
        for entry in manifest.entries {
            #expect(["database", "sidecar", "keyFile"].contains(entry.type), "\(entry.path): type \(entry.type)")
            #expect(!entry.origin.generator.isEmpty && !entry.origin.writer.isEmpty && !entry.origin.method.isEmpty)
            #expect(!entry.origin.generatorVersion.isEmpty && !entry.origin.writerVersion.isEmpty)
            if entry.type != "sidecar" { #expect(!entry.checks.isEmpty, "\(entry.path) has no checks") }
            for sidecar in entry.sidecars ?? [] {
                #expect(
                    manifest.entry(sidecar)?.sidecarOf == entry.path, "\(sidecar) is not a sidecar of \(entry.path)")
            }
            if let owner = entry.sidecarOf {
                #expect(manifest.entry(owner)?.sidecars?.contains(entry.path) == true, "\(entry.path): owner \(owner)")
            }
            if let base = entry.origin.derivedFrom {
                #expect(manifest.entry(base) != nil, "\(entry.path): base \(base)")
            }
            let keys = [entry.key] + entry.checks.flatMap { [$0.key, $0.importPlaintext?.key] }
            for path in keys.compactMap({ $0?.keyFilePath }) {
                #expect(manifest.entry(path)?.type == "keyFile", "\(entry.path): key file \(path)")
            }
        }
    }
}
