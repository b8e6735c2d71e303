// The code of SearchField.md, block by block.

import Coffer
import Foundation

/// Runs the article's blocks on one database in `directory`; the block that awaits a search is
/// returned, for the caller to await after the others ran.
func searchField(in directory: URL) throws -> () async throws -> Void {
    let db = try openDatabase(in: directory, named: "notes")  // harness
    let connection = try db.newConnection()  // harness
    struct Note: Codable, Sendable {
        var title: String
        var body: String
        var modified: Date
    }

    let search = FullTextSearch(
        columns: ["title", "body"],
        handler: .object(Note.self) { row, text in
            text["title"] = row.object.title
            text["body"] = row.object.body
        },
        tokenizer: .unicode61(),
        allowedCollections: .only(["notes"]))
    try db.register(search, withName: "notes_fts")

    let notesList = AutoView(
        grouping: .key { _, group in group = "all" },
        sorting: .object(Note.self) { _, left, right in
            left.object.modified > right.object.modified ? .orderedAscending
                : left.object.modified < right.object.modified ? .orderedDescending : .orderedSame
        },
        allowedCollections: .only(["notes"]))
    try db.register(notesList, withName: "notes")

    let results = SearchResultsView(
        fullTextSearchName: "notes_fts",
        source: .parentView("notes"),
        snippetOptions: .init(startMatch: "**", endMatch: "**", tokenCount: 12))
    try db.register(results, withName: "noteResults")
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)  // harness
    let notes = CollectionHandle<Note>("notes")  // harness
    try connection.readWrite { tx in  // harness
        let texts = [  // harness
            ("Keys", "The database is encrypted with a raw key"),  // harness
            ("Shopping", "Milk, bread, encryption-free coffee"),  // harness
            ("Cipher notes", "SQLCipher encrypts every page"),  // harness
        ]  // harness
        for (index, (title, body)) in texts.enumerated() {  // harness
            let note = Note(title: title, body: body, modified: start + Double(index))  // harness
            try tx.set(note, forKey: "note\(index)", in: notes)  // harness
        }  // harness
    }  // harness

    func matchExpression(for text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "\"" })
            .map { "\"\($0)*\"" }
            .joined(separator: " ")
    }
    try expect(matchExpression(for: "encr \"OR") == "\"encr*\" \"OR*\"", "quoted prefixes")  // harness

    let queue = SearchQueue()

    func searchFieldChanged(to text: String) {
        queue.enqueue(matchExpression(for: text))
        connection.asyncReadWrite { tx in
            try tx.extension("noteResults", as: SearchResultsViewTransaction.self).performSearch(with: queue)
        }
    }
    for typed in ["c", "ci", "cip", "ciph"] { searchFieldChanged(to: typed) }  // harness
    try connection.readWrite { _ in }  // harness: waits for the searches queued before it
    try connection.read { tx in  // harness
        let view = try tx.extension("noteResults", as: SearchResultsViewTransaction.self)  // harness
        try expect(try view.query() == "\"ciph*\"", "the last query ran")  // harness
        try expect(try view.numberOfItems(inGroup: "all") == 1, "one note about ciphers")  // harness
    }  // harness

    try connection.read { tx in
        let view = try tx.extension("noteResults", as: SearchResultsViewTransaction.self)
        try view.enumerateKeys(inGroup: "all") { row, index, stop in
            let snippet = try view.snippet(forKey: row.key, inCollection: row.collection)
            print(index, snippet ?? "")
        }
    }
    try connection.read { tx in  // harness
        let view = try tx.extension("noteResults", as: SearchResultsViewTransaction.self)  // harness
        var keys: [String] = []  // harness
        try view.enumerateKeys(inGroup: "all") { row, _, _ in keys.append(row.key) }  // harness
        try expect(keys == ["note2"], "one note about ciphers: \(keys)")  // harness
        let snippet = try view.snippet(forKey: "note2", inCollection: "notes")  // harness
        try expect(snippet?.contains("**Cipher**") == true, "snippet: \(snippet ?? "nil")")  // harness
    }  // harness

    let best = try connection.read { tx in
        try tx.fullTextSearch("notes_fts")?.keysByRelevance(
            matching: matchExpression(for: "cipher"), columnWeights: ["title": 4]) ?? []
    }
    try expect(best.first?.key == "note2", "the note titled about ciphers first: \(best)")  // harness
    return {  // harness
        try await connection.search(matchExpression(for: "encr"), inView: "noteResults", queue: queue)
        try await connection.readWrite { tx in  // harness
            let later = Note(title: "Later", body: "encrypt it", modified: start + 10)  // harness
            try tx.set(later, forKey: "note3", in: notes)  // harness
            try tx.set(Note(title: "Keys", body: "plain", modified: start), forKey: "note0", in: notes)  // harness
        }  // harness
        let keys = try await connection.read { tx in  // harness
            let view = try tx.extension("noteResults", as: SearchResultsViewTransaction.self)  // harness
            var keys: [String] = []  // harness
            try view.enumerateKeys(inGroup: "all") { row, _, _ in keys.append(row.key) }  // harness
            return keys  // harness
        }  // harness
        // harness: newest first; "Keys" stopped matching, "Later" arrived
        try expect(keys == ["note3", "note2", "note1"], "live update: \(keys)")  // harness
    }  // harness
}
