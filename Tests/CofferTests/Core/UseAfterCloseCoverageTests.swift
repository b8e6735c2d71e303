import Foundation
import Testing

/// Keeps ``UseAfterCloseTests`` complete: every public member that `Sources/Coffer` declares for
/// the types a closed database leaves behind must be listed in ``UseAfterCloseTests/covered``.
@Suite struct UseAfterCloseCoverageTests {
    static let types = [
        "Database", "Connection", "ConnectionPool", "ConnectionProxy", "Preferences", "CredentialStore",
    ]

    /// `Type.name` for every public member declared directly in one of ``types`` or an extension of it.
    static func declaredMembers() throws -> Set<String> {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Coffer")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        let typePattern = try Regex(
            #"^(?:public |package )?(?:final )?(?:class|extension) (Database|Connection|ConnectionPool|ConnectionProxy|Preferences|CredentialStore)\b"#
        )
        let memberPattern = try Regex(
            #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*public (?:static |nonisolated |convenience )*(?:func|var|let|init|subscript)\b\s*([A-Za-z_][A-Za-z0-9_]*)?"#
        )
        var members: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            var depth = 0
            var current: String?
            for line in try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                let code = line.trimmingCharacters(in: .whitespaces).hasPrefix("//") ? "" : String(line)
                if depth == 0 {
                    current = code.firstMatch(of: typePattern).map { String($0.output[1].substring ?? "") }
                } else if depth == 1, let current, let match = code.firstMatch(of: memberPattern) {
                    let keyword = code.contains("public init") || code.contains("convenience init") ? "init" : nil
                    let name = keyword ?? match.output[1].substring.map(String.init) ?? "subscript"
                    members.insert("\(current).\(name)")
                }
                for character in code {
                    if character == "{" { depth += 1 }
                    if character == "}" { depth -= 1 }
                }
            }
        }
        return members
    }

    @Test func everyPublicMemberIsCovered() throws {
        let declared = try Self.declaredMembers()
        // The scan itself must find the members it is meant to check.
        #expect(declared.contains("Database.newConnection"))
        #expect(declared.contains("Connection.readWrite"))
        #expect(declared.contains("Preferences.set"))
        let missing = declared.subtracting(UseAfterCloseTests.covered).sorted()
        #expect(missing.isEmpty, "not covered by UseAfterCloseTests after close: \(missing)")
    }
}
