import Foundation
import Testing

@Suite("coffer demo")
struct DemoCommandTests {
    @Test func demoWritesReadsAndFindsNoPlaintext() throws {
        let workspace = Workspace()
        for run in 0..<2 {
            let result = try workspace.coffer(["demo", "--database", workspace.path("demo.db")])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains(run == 0 ? "(new," : "(existing,"))
            #expect(result.out.contains("Scan:"))
            #expect(!result.out.contains("FOUND"))
            #expect(!result.out.contains("PLAINTEXT SQLite header"))
        }
    }
}
