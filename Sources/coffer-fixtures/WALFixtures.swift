import Coffer
import Foundation

/// The WAL fixture: a database copied, with its `-wal`, while commits sat in the WAL because a
/// long-lived reader stopped every checkpoint from copying them home.
struct WALFixtures {
    let context: GeneratorContext

    static let serializers = [CollectionSerializers(collection: "journal", object: ChainSpec(codec: .note))]

    /// Rows committed and checkpointed into the main file before the reader pinned the WAL.
    static let checkpointed: [FixtureRow] = [
        FixtureRow("journal", "a1", Note(title: "In the main file", body: "checkpointed", tags: [])),
        FixtureRow("journal", "a2", Note(title: "Also in the main file", body: "checkpointed", tags: [])),
    ]

    /// Rows committed while the reader pinned the WAL: they exist only in the `-wal`.
    static let walOnly: [[FixtureRow]] = [
        [FixtureRow("journal", "b1", Note(title: "Only in the WAL", body: "first commit", tags: ["wal"]))],
        [
            FixtureRow("journal", "b2", Note(title: "Only in the WAL", body: "second commit", tags: ["wal"])),
            FixtureRow("journal", "a1", Note(title: "Updated in the WAL", body: "overrides the main file", tags: [])),
        ],
    ]

    /// Writes the WAL fixture.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    func make() throws {
        let path = context.cofferPath("wal-uncheckpointed.db")
        let recipe = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096), serializers: Self.serializers)
        let captured = try Self.captureWithPinnedWAL(
            in: try context.stage.scratchDirectory("wal"), recipe: recipe, context: context)
        let databaseURL = try context.stage.url(path)
        try FileManager.default.copyItem(at: captured.database, to: databaseURL)
        let walPath = path + "-wal"
        try FileManager.default.copyItem(at: captured.wal, to: try context.stage.url(walPath))

        let origin = context.origin(
            "two rows checkpointed; then a long-lived read transaction on a second connection pinned the WAL while two more commits (two inserts, one update) were made; the db and its -wal were copied while the database was still open (no -shm)"
        )
        let wrongKey = try Observer(context: context).observation(
            path, sidecars: [walPath], key: .raw(FixtureKeys.otherRawKey), cipher: recipe.cipher)
        guard wrongKey.expectation.openError?.code == "wrongKey" else {
            throw GeneratorError("\(path): a wrong key did not fail with wrongKey")
        }
        context.addDatabase(
            path, origin: origin, recipe: recipe, sidecars: [walPath],
            checks: [
                Check(name: "contents with the WAL", expect: captured.full),
                Check(name: "main file alone", withoutSidecars: true, expect: captured.mainOnly),
                wrongKey.check("wrong raw key", key: .raw(FixtureKeys.otherRawKey)),
            ])
        context.addSidecar(walPath, of: path, origin: origin)
    }

    /// The copied files and what they hold with and without the WAL.
    struct Capture {
        var database: URL
        var wal: URL
        var full: Expectation
        var mainOnly: Expectation
    }

    /// Writes the rows with a pinned WAL and copies the files while the database is open.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    static func captureWithPinnedWAL(
        in directory: URL, recipe: FixtureDatabase.Recipe, context: GeneratorContext
    ) throws -> Capture {
        let copies = directory.appendingPathComponent("copies")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        let database = try FixtureDatabase(url: directory.appendingPathComponent("live.db"), recipe: recipe) {
            context.stage.stagedURL($0)
        }
        context.noteVersions(of: try database.open())
        try database.write(checkpointed)
        try database.open().checkpoint(truncate: true)
        var mainOnly = Expectation()
        mainOnly.rows = try database.expectedRows()
        mainOnly.snapshot = try database.snapshot()
        mainOnly.pageSize = try database.pageSize()

        var full = Expectation()
        let live = database.url
        let databaseCopy = copies.appendingPathComponent("wal.db")
        let walCopy = copies.appendingPathComponent("wal.db-wal")
        do {
            let reader = try database.open().newConnection()
            _ = try reader.beginLongLivedReadTransaction()
            for batch in walOnly { try database.write(batch) }
            // A passive checkpoint now can copy nothing: every new frame is newer than the reader's snapshot.
            try database.open().checkpoint()
            try database.verifyReadBack()
            full.rows = try database.expectedRows()
            full.snapshot = try database.snapshot()
            full.pageSize = try database.pageSize()
            try FileManager.default.copyItem(at: live, to: databaseCopy)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: live.path + "-wal"), to: walCopy)
            try reader.endLongLivedReadTransaction()
        }
        try database.close()
        guard try FixtureStage.size(of: walCopy) > 0 else {
            throw GeneratorError("the WAL copy is empty: the reader did not pin the WAL")
        }
        return Capture(database: databaseCopy, wal: walCopy, full: full, mainOnly: mainOnly)
    }
}
