import CofferTestSupport
import Foundation
import Testing

/// The code the documents show is the code CI compiles: every ```swift block of README.md and of
/// GettingStarted.md appears verbatim in the example program built from it (Examples/), and every
/// block of CofferSync's Getting Started in `coffer-sync demo`, which scripts/ci/sync.sh runs
/// against a real server; or a block is listed in ``notInPrograms`` with the check that covers it.
@Suite("Code in README.md and the Getting Started articles")
struct DocumentCodeTests {
    static let readme = "README.md"
    static let gettingStarted = "Sources/Coffer/Coffer.docc/GettingStarted.md"
    static let syncGettingStarted = "Sync/Sources/CofferSync/CofferSync.docc/GettingStarted.md"

    /// Blocks that are not part of a program, by their first line, and why.
    static let notInPrograms: [String: String] = [
        "// swift-tools-version:6.1":
            "a package manifest, not program code: appPackageManifestLoads has SwiftPM load it"
    ]

    private func text(_ relativePath: String) throws -> String {
        try String(contentsOf: Program.packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Checks that each block of `document` is in `program` or listed in ``notInPrograms``.
    private func checkBlocks(of document: String, in program: String) throws {
        let blocks = CodeBlocks.swiftBlocks(in: try text(document))
        #expect(!blocks.isEmpty, "\(document) has no ```swift block")
        let source = try text(program).components(separatedBy: "\n")
        for block in blocks where Self.notInPrograms[block.first ?? ""] == nil {
            #expect(
                CodeBlocks.appears(block, in: source),
                "this block of \(document) is not in \(program) (edit both):\n\(block.joined(separator: "\n"))")
        }
    }

    @Test func everyReadmeBlockIsInItsProgram() throws {
        try checkBlocks(of: Self.readme, in: "Examples/README/main.swift")
    }

    @Test func everyGettingStartedBlockIsInItsProgram() throws {
        try checkBlocks(of: Self.gettingStarted, in: "Examples/GettingStarted/main.swift")
    }

    @Test func everySyncGettingStartedBlockIsInTheSyncDemo() throws {
        try checkBlocks(of: Self.syncGettingStarted, in: "Sync/Sources/coffer-sync/DemoCommand.swift")
    }

    @Test func aBlockThatDiffersInOneCharacterIsNotFound() throws {
        let source = try text("Examples/README/main.swift").components(separatedBy: "\n")
        let block = try #require(CodeBlocks.swiftBlocks(in: try text(Self.readme)).first)
        #expect(CodeBlocks.appears(block, in: source))
        var changed = block
        changed[changed.count / 2] += " "
        #expect(!CodeBlocks.appears(changed, in: source))
        #expect(!CodeBlocks.appears(block.map { "  " + $0 }, in: source), "more indentation in the document")
    }

    @Test func anElidedLineStandsForAnyRunOfLines() {
        let source = ["do {", "    let a = 1", "    let b = 2", "}", "print(0)"]
        #expect(CodeBlocks.appears(["do {", "    // …", "}", "print(0)"], in: source))
        #expect(CodeBlocks.appears(["let a = 1", "// …", "let b = 2"], in: source))
        #expect(!CodeBlocks.appears(["do {", "    // …", "print(0)", "}"], in: source))
    }

    /// GettingStarted's Package.swift, written as an app's manifest and loaded by SwiftPM, which
    /// rejects a `package:` that names no dependency ("unknown package").
    @Test func appPackageManifestLoads() throws {
        let manifests = CodeBlocks.swiftBlocks(in: try text(Self.gettingStarted)).filter {
            $0.first == "// swift-tools-version:6.1"
        }
        #expect(manifests.count == 1)
        for manifest in manifests {
            let directory = TemporaryDirectory("coffer-app-manifest")
            try Data(manifest.joined(separator: "\n").utf8).write(to: directory.file("Package.swift"))
            let home = ProcessInfo.processInfo.environment["HOME"] ?? directory.url.path
            let result = try Program.run(
                try Program.swiftTool(), ["package", "dump-package"], in: directory.url, environment: ["HOME": home])
            #expect(result.status == 0, "\(result.err)")
            #expect(!result.timedOut)
            let dump = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
            let target = try #require((dump["targets"] as? [[String: Any]])?.first)
            let product = try #require((target["dependencies"] as? [[String: Any]])?.first?["product"] as? [Any])
            #expect(product.first as? String == "Coffer", "the library product's name")
        }
    }
}
