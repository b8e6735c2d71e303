// The code of SerializerChains.md, block by block on one database: the keyring the second block
// makes is the one the third rotates.

import Coffer
import Foundation

/// Runs the article's blocks in order on a new database in `directory`.
func serializerChains(in directory: URL) throws {
    struct Note: Codable, Sendable {  // harness
        var title: String  // harness
    }  // harness
    let db = try openDatabase(in: directory, named: "chains")  // harness
    let connection = try db.newConnection()  // harness

    // Objects as JSON, then zlib; metadata keeps the default chain.
    let notes = CollectionHandle<Note>("notes")
    try db.register(notes, stages: [.zlib()])

    // Objects and metadata, each with its own type, through the same stages.
    let drafts = TypedCollection<Note, Date>("drafts")
    try db.register(drafts, stages: [.zlib()])

    // A full chain for objects and metadata (the metadata copy gets the metadata role).
    db.registerSerializer(SerializerChain(codec: .propertyList(Note.self)), forCollection: "legacy")

    let saved = Date(timeIntervalSinceReferenceDate: 1_000)  // harness
    try connection.readWrite { tx in  // harness
        try tx.set(Note(title: String(repeating: "long ", count: 200)), forKey: "n1", in: notes)  // harness
        try tx.set(Note(title: "draft"), forKey: "d1", in: drafts, metadata: saved)  // harness
        try tx.setObject(Note(title: "old"), forKey: "l1", inCollection: "legacy")  // harness
    }  // harness
    try connection.read { tx in  // harness
        try expect(try tx.object(forKey: "n1", in: notes)?.title.count == 1_000, "notes read back")  // harness
        try expect(try tx.metadata(forKey: "d1", in: drafts) == saved, "draft metadata reads back")  // harness
        let legacy = try tx.serializedObject(forKey: "l1", inCollection: "legacy")  // harness
        try expect(legacy?.starts(with: Data("bplist".utf8)) == true, "legacy is a property list")  // harness
    }  // harness

    db.registerCodable(Note.self, forCollection: "compact")  // harness
    try connection.readWrite { tx in try tx.setObject(Note(title: "json"), forKey: "c1", inCollection: "compact") }  // harness

    // New rows in the compact binary format; JSON rows already stored stay readable.
    db.registerCodable(Note.self, forCollection: "compact", format: .binary)

    // Or for every Codable collection of a database, before opening it:
    // options.codableFormat = .binary

    // Rewrite the collection's older rows as binary, in resumable batches.
    try db.reencode(collection: "compact")

    try connection.read { tx in  // harness
        let stored = try tx.serializedObject(forKey: "c1", inCollection: "compact")  // harness
        try expect(stored?.first == 0xC1, "the JSON row was re-encoded as binary")  // harness
        try expect(try tx.object(forKey: "c1", inCollection: "compact", as: Note.self)?.title == "json", "reads back")  // harness
    }  // harness

    let keyring = try Keyring(key: DataKey.random(), id: 1)   // current key: 1
    let secrets = CollectionHandle<Note>("secrets")
    try db.register(secrets, stages: [.zlib(), .aesGCM(keyring)])

    try connection.readWrite { tx in try tx.set(Note(title: "pin"), forKey: "s1", in: secrets) }  // harness

    try keyring.addKey(DataKey.random(), id: 2)
    try keyring.setCurrent(2)                                  // new writes use key 2 at once
    try db.reencrypt(collection: "secrets", batchSize: 500)    // resumable; readers keep working
    try keyring.removeKey(1)                                    // only after every row moved

    let secret = try connection.read { tx in try tx.object(forKey: "s1", in: secrets) }  // harness
    try expect(secret?.title == "pin", "the secret reads back under key 2")  // harness

    /// Stores bytes reversed: a toy transform that shows the protocol's shape.
    struct ReversingStage: SerializationStage {
        var stageID: UInt8 { 200 }
        var name: String { "reverse" }
        var kind: SerializationStageKind { .transform }

        func encode(_ input: Data, context: SerializationStageContext) throws -> SerializationStageOutput? {
            SerializationStageOutput(parameters: Data(), payload: Data(input.reversed()))
        }

        func decode(_ payload: Data, parameters: Data, context: SerializationStageContext) throws -> Data {
            Data(payload.reversed())
        }
    }

    let reversed = CollectionHandle<Note>("reversed")  // harness
    try db.register(reversed, stages: [ReversingStage()])  // harness
    try connection.readWrite { tx in try tx.set(Note(title: "abc"), forKey: "r1", in: reversed) }  // harness
    let back = try connection.read { tx in try tx.object(forKey: "r1", in: reversed) }  // harness
    try expect(back?.title == "abc", "a reversed row reads back")  // harness
}
