import Foundation
import Testing

@Suite("coffer verify")
struct VerifyCommandTests {
    @Test func aHealthyDatabaseVerifies() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(120))
        let result = try workspace.coffer(["verify", "--json", "--no-progress"] + workspace.rawKeyArguments)
        #expect(result.status == 0, "\(result.err)")
        let report = try result.json()
        #expect(report["rows"] as? Int == 120)
        #expect(report["complete"] as? Bool == true)
        #expect((report["problems"] as? [Any])?.isEmpty == true)

        let text = try workspace.coffer(["verify", "--no-progress"] + workspace.rawKeyArguments)
        #expect(text.out.contains("Verified 120 row(s): no problems"))
    }

    @Test func aDamagedPageIsReportedByRowWithStatus6() throws {
        let workspace = Workspace()
        try workspace.createWithRawKey()
        try workspace.importLines(Workspace.rows(200, collection: "big", padding: 3_000))

        // Damage one page near the end of the file: a page of row data, not page 1 or the schema.
        let url = URL(fileURLWithPath: workspace.database)
        var bytes = try Data(contentsOf: url)
        let pages = bytes.count / 4096
        try #require(pages > 20)
        let offset = (pages - 5) * 4096 + 2_000
        bytes.replaceSubrange(offset..<(offset + 16), with: [UInt8](repeating: 0xFF, count: 16))
        try bytes.write(to: url)

        let result = try workspace.coffer(["verify", "--json", "--no-progress"] + workspace.rawKeyArguments)
        #expect(result.status == 6, "\(result.err)")
        let report = try result.json()
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(!problems.isEmpty)
        // Every problem names a row (or the scan); a damaged page does not poison the rows after it.
        #expect(problems.count < 20)
        for problem in problems where problem["part"] as? String != "scan" {
            #expect(problem["collection"] as? String == "big")
            #expect((problem["key"] as? String)?.hasPrefix("k") == true)
        }
        #expect(result.err.contains("verify found"))
    }
}
