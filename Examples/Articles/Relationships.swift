// The code of Relationships.md, block by block, on one database.

import Coffer
import Foundation

struct Note: Codable, Sendable, RelationshipNode {
    var title: String
    var attachments: [URL]

    var relationshipEdges: [RelationshipEdge] {
        attachments.map { file in
            RelationshipEdge(
                name: "attachment", destination: .file(file),
                rules: .deleteDestinationIfSourceDeleted)
        }
    }
}

/// Runs the article's blocks in order on a new database in `directory`.
func relationships(in directory: URL) async throws {
    let db = try openDatabase(in: directory, named: "relationships")  // harness
    let connection = try db.newConnection()  // harness
    func attachment(_ name: String) throws -> URL {  // harness
        let url = directory.appendingPathComponent(name)  // harness
        try Data(name.utf8).write(to: url)  // harness
        return url  // harness
    }  // harness
    let photo = try attachment("photo.jpg")  // harness
    let ticket = try attachment("ticket.pdf")  // harness
    let thumbnail = try attachment("thumbnail.png")  // harness
    func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }  // harness

    db.registerCodable(Note.self, forCollection: "notes")
    let relationship = Relationship()
    try db.register(relationship, withName: "relationship")

    try await connection.readWrite { tx in
        try tx.setObject(
            Note(title: "Trip", attachments: [photo, ticket]),
            forKey: "trip", inCollection: "notes")
    }
    let attached = try await connection.read { tx in
        try tx.extension("relationship", as: RelationshipTransaction.self)
            .edgeCount(name: "attachment", source: CollectionKey(collection: "notes", key: "trip"))
    }
    try expect(attached == 2, "the note has two attachment edges")  // harness

    try await connection.readWrite { tx in
        try tx.removeObject(forKey: "trip", inCollection: "notes")
    }
    await relationship.waitForFileDeletions()  // the files go after the commit, off this thread
    try expect(!exists(photo) && !exists(ticket), "removing the note deleted its files")  // harness

    try await connection.readWrite { tx in  // harness
        try tx.setObject(Note(title: "Draft", attachments: []), forKey: "draft", inCollection: "notes")  // harness
        try tx.setObject(Note(title: "Final", attachments: []), forKey: "final", inCollection: "notes")  // harness
    }  // harness
    try await connection.readWrite { tx in
        let edges = try tx.extension("relationship", as: RelationshipTransaction.self)
        for key in ["draft", "final"] {
            try edges.addEdge(
                RelationshipEdge(
                    name: "thumbnail", source: CollectionKey(collection: "notes", key: key),
                    destination: .file(thumbnail), rules: .deleteDestinationIfAllSourcesDeleted))
        }
    }
    try await connection.readWrite { tx in try tx.removeObject(forKey: "draft", inCollection: "notes") }  // harness
    await relationship.waitForFileDeletions()  // harness
    try expect(exists(thumbnail), "the shared thumbnail stays while a note points at it")  // harness
    try await connection.readWrite { tx in try tx.removeObject(forKey: "final", inCollection: "notes") }  // harness
    await relationship.waitForFileDeletions()  // harness
    try expect(!exists(thumbnail), "the thumbnail went with the last note")  // harness
    try await db.close()  // harness
}
