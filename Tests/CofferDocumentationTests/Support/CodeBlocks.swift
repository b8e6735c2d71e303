import Foundation

/// The ```swift blocks of a Markdown document, and where they appear in Swift source.
enum CodeBlocks {
    /// A line that stands for any run of lines, so that a block can show the outline of code
    /// whose middle the document shows elsewhere.
    static let elision = "// …"

    /// The ```swift blocks of `markdown`, each as its lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
            } else if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current ?? [])
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Whether `block` appears in `source` line for line, every line moved right by the same
    /// indentation (a block shown at the top level may sit inside a `do { }` block there); an
    /// ``elision`` line in `block` matches any run of lines.
    static func appears(_ block: [String], in source: [String]) -> Bool {
        guard let first = block.first else { return true }
        for start in source.indices where source[start].hasSuffix(first) {
            let indent = String(source[start].dropLast(first.count))
            guard indent.allSatisfy({ $0 == " " }) else { continue }
            if matches(block[...], source[start...], indent: indent) { return true }
        }
        return false
    }

    private static func matches(_ block: ArraySlice<String>, _ source: ArraySlice<String>, indent: String) -> Bool {
        guard let line = block.first else { return true }
        if line.trimmingCharacters(in: .whitespaces) == elision {
            var rest = source
            while true {
                if matches(block.dropFirst(), rest, indent: indent) { return true }
                if rest.isEmpty { return false }
                rest = rest.dropFirst()
            }
        }
        guard let sourceLine = source.first else { return false }
        let same =
            line.isEmpty ? sourceLine.trimmingCharacters(in: .whitespaces).isEmpty : sourceLine == indent + line
        return same && matches(block.dropFirst(), source.dropFirst(), indent: indent)
    }
}

extension CodeBlocks {
    /// Whether `block` appears in the Swift file `source`, where its leading `import` lines (a
    /// block shown as a whole program) sit at the top level of the file and the rest of it
    /// anywhere, as ``appears(_:in:)`` finds it — for example inside a function.
    static func appears(inFile source: [String], _ block: [String]) -> Bool {
        let imports = block.prefix { $0.hasPrefix("import ") || $0.isEmpty }
        guard imports.contains(where: { !$0.isEmpty }) else { return appears(block, in: source) }
        let rest = Array(block.dropFirst(imports.count))
        return imports.allSatisfy { $0.isEmpty || source.contains($0) } && appears(rest, in: source)
    }
}
