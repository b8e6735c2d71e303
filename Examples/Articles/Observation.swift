// The code of Observation.md: an observed read, and the convenience forms for a row, a
// collection's keys, a SecondaryIndex query and a FullTextSearch expression. Each loop runs in a
// task of its own, as the article says, and the harness cancels it after a commit.

import Coffer
import Foundation
import Synchronization

/// Runs the article's blocks in order on a new database in `directory`.
func observation(in directory: URL) async throws {
    struct Note: Codable, Sendable {  // harness
        var title: String  // harness
    }  // harness
    struct Employee: Codable, Sendable {  // harness
        var department: String  // harness
    }  // harness
    let notes = CollectionHandle<Note>("notes")  // harness
    let db = try openDatabase(in: directory, named: "observation")  // harness
    try db.register(notes)  // harness
    try db.register(  // harness
        SecondaryIndex(  // harness
            setup: SecondaryIndexSetup([("department", .text)]),  // harness
            handler: .object(Employee.self) { row, values in values["department"] = row.object.department }),  // harness
        withName: "staff")  // harness
    try db.register(  // harness
        FullTextSearch(columns: ["title"], handler: .object(Note.self) { row, text in text["title"] = row.object.title }),  // harness
        withName: "search")  // harness
    let writer = try db.newConnection()  // harness

    /// Runs `loop` in a task, makes one commit while it runs, then cancels it.  // harness
    func watch(_ loop: @escaping @Sendable () async throws -> Void) async throws {  // harness
        try await withThrowingTaskGroup(of: Void.self) { group in  // harness
            group.addTask { try await loop() }  // harness
            try await Task.sleep(for: .milliseconds(100))  // harness
            try await writer.readWrite { tx in  // harness
                try tx.set(Note(title: "swift notes"), forKey: "n\(UUID())", in: notes)  // harness
                try tx.setObject(Employee(department: "eng"), forKey: "e\(UUID())", inCollection: "staff")  // harness
            }  // harness
            try await Task.sleep(for: .milliseconds(100))  // harness
            group.cancelAll()  // harness
            try await group.waitForAll()  // harness
        }  // harness
    }  // harness

    try await watch {  // harness
        let noteCount = db.observe(.collection(notes)) { tx in
            try tx.numberOfKeys(in: notes)
        }
        for try await count in noteCount {
            print("\(count) notes")            // at once, then after each commit to "notes"
        }
    }  // harness
    try await watch {  // harness
        for try await note in db.observeObject(forKey: "n1", in: notes) {
            print(note?.title ?? "no note")
        }
    }  // harness
    try await watch {  // harness
        for try await keys in db.observeKeys(in: notes) {
            print(keys.count)
        }
    }  // harness
    try await watch {  // harness
        let query = try DatabaseQuery(format: "WHERE department = ?", "eng")
        for try await rows in db.observeKeys(matching: query, inSecondaryIndex: "staff") {
            print(rows.map(\.key))
        }
    }  // harness
    try await watch {  // harness
        for try await rows in db.observeKeys(matching: "swift", inFullTextSearch: "search") {
            print(rows.count)
        }
    }  // harness
}
