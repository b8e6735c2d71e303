import CofferTestSupport
import Foundation
import Testing

/// The code the DocC articles show is code CI compiles and runs: every ```swift block of every
/// article under Sources/Coffer/Coffer.docc appears in `Examples/Articles/<Article>.swift`, the
/// article's part of the `articles-example` program, which runs each article's code in turn.
@Suite("Code in the DocC articles")
struct ArticleCodeTests {
    static let catalog = "Sources/Coffer/Coffer.docc"
    static let examples = "Examples/Articles"

    /// Articles whose code another program holds, and the check that covers it.
    static let coveredElsewhere: [String: String] = [
        "GettingStarted": "Examples/GettingStarted/main.swift, checked by DocumentCodeTests"
    ]

    /// Blocks of articles that are not Swift program code, by their first line, and why.
    static let notInPrograms: [String: String] = [:]

    /// One article of the catalog: its name (the file's, without `.md`) and its ```swift blocks.
    struct Article {
        var name: String
        var path: String
        var blocks: [[String]]
    }

    /// Every `.md` file under the catalog, however deep.
    static func articles() throws -> [Article] {
        let root = Program.packageRoot.appendingPathComponent(catalog)
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".md") }.sorted().map { path in
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let name = String(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
            return Article(name: name, path: "\(catalog)/\(path)", blocks: CodeBlocks.swiftBlocks(in: text))
        }
    }

    /// The article files of Examples/Articles: every `.swift` file but `main.swift`.
    static func exampleFiles() throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: Program.packageRoot.appendingPathComponent(examples).path)
        return Set(names.filter { $0.hasSuffix(".swift") && $0 != "main.swift" }.map { String($0.dropLast(6)) })
    }

    /// The articles `articles-example` runs: those with blocks not covered elsewhere.
    static func runArticles() throws -> [Article] {
        try articles().filter { !$0.blocks.isEmpty && coveredElsewhere[$0.name] == nil }
    }

    @Test func everyArticleBlockIsInItsFile() throws {
        let articles = try Self.runArticles()
        #expect(articles.count >= 9, "\(articles.map(\.name))")
        let files = try Self.exampleFiles()
        for article in articles {
            let file = "\(Self.examples)/\(article.name).swift"
            guard files.contains(article.name) else {
                Issue.record(
                    """
                    \(article.path) has ```swift blocks but no \(file): add that file with a function that \
                    runs the blocks in order (set-up lines marked `// harness`), and call it from \
                    \(Self.examples)/main.swift
                    """)
                continue
            }
            let source = try String(contentsOf: Program.packageRoot.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            for block in article.blocks where Self.notInPrograms[block.first ?? ""] == nil {
                let found = CodeBlocks.appears(inFile: source, block)
                #expect(
                    found,
                    "this block of \(article.path) is not in \(file) (edit both):\n\(block.joined(separator: "\n"))")
            }
        }
    }

    @Test func everyExampleFileBelongsToAnArticle() throws {
        let names = Set(try Self.runArticles().map(\.name))
        for file in try Self.exampleFiles() {
            #expect(
                names.contains(file),
                "\(Self.examples)/\(file).swift is named after no article with code")
        }
    }

    /// The list of exceptions stays true: an article covered elsewhere still has code.
    @Test func articlesCoveredElsewhereStillHaveCode() throws {
        let articles = Dictionary(try Self.articles().map { ($0.name, $0) }) { first, _ in first }
        for name in Self.coveredElsewhere.keys.sorted() {
            #expect(articles[name]?.blocks.isEmpty == false, "\(name).md has no ```swift block any more")
        }
    }

    @Test func leadingImportsMatchTheTopOfTheFile() {
        let source = ["import Coffer", "import Foundation", "", "func f() {", "    let a = 1", "}"]
        #expect(CodeBlocks.appears(inFile: source, ["import Coffer", "", "let a = 1"]))
        #expect(!CodeBlocks.appears(inFile: source, ["import Crypto", "", "let a = 1"]))
        #expect(!CodeBlocks.appears(inFile: source, ["import Coffer", "", "let a = 2"]))
    }

    @Test func theArticlesProgramRuns() throws {
        let directory = TemporaryDirectory("coffer-articles-example")
        let result = try Program.run(
            try Program.built("articles-example"), [directory.url.path], in: directory.url,
            environment: [
                "TMPDIR": directory.url.path, "HOME": directory.url.path, "XDG_DATA_HOME": directory.url.path,
            ], timeout: .seconds(120))
        #expect(!result.timedOut, "articles-example did not finish")
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.components(separatedBy: "\n")
        for article in try Self.runArticles() {
            #expect(lines.contains("\(article.name): ok"), "\(article.name) did not run:\n\(result.out)\(result.err)")
            var isDirectory: ObjCBool = false
            let path = directory.url.appendingPathComponent(article.name).path
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
        // HandlingErrors' catch clauses ran: its harness makes each block meet its error.
        #expect(lines.contains("Wrong key or passphrase; ask again."))
        #expect(lines.contains("The row was altered or moved; restore it."))
        // Every database was closed: one still open (or closing) at exit leaves its -wal and -shm.
        let files = FileManager.default.enumerator(atPath: directory.url.path)?.compactMap { $0 as? String } ?? []
        let open = files.filter { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }
        #expect(open.isEmpty, "\(open)")
        #expect(files.contains { $0.hasPrefix("Coffer/notes-") && $0.hasSuffix(".coffer") }, "\(files)")
    }
}
