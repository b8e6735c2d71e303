import CofferFixtureSupport
import Coffer
import Foundation

/// The re-keyed file beside a stale `-wal` (research note sqlcipher.md §2.10).
extension DamagedFixtures {
    /// Exports a database whose commits sit in its WAL to a new key, then puts the exported file
    /// at the old path while the old `-wal` stays beside it: what a rename without a checkpoint leaves.
    func makeStaleWAL() throws {
        let recipe = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096), serializers: WALFixtures.serializers)
        let scratch = try context.stage.scratchDirectory("stale-wal")
        let captured = try WALFixtures.captureWithPinnedWAL(in: scratch, recipe: recipe, context: context)

        // Export (old db + its WAL, opened with the old key) to the new key.
        let exportDirectory = scratch.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: exportDirectory, withIntermediateDirectories: true)
        let source = exportDirectory.appendingPathComponent("old.db")
        try FileManager.default.copyItem(at: captured.database, to: source)
        try FileManager.default.copyItem(at: captured.wal, to: URL(fileURLWithPath: source.path + "-wal"))
        let exported = exportDirectory.appendingPathComponent("new.db")
        do {
            var options = DatabaseOptions()
            options.key = .raw(FixtureKeys.rawKey)
            options.cipher = recipe.cipher.settings
            let database = try Database(url: source, options: options)
            try database.newConnection().backup(to: exported, key: .raw(FixtureKeys.otherRawKey))
        }

        let path = context.damagedPath("rekeyed-stale-wal.db")
        let walPath = path + "-wal"
        try FileManager.default.copyItem(at: exported, to: try context.stage.url(path))
        try FileManager.default.copyItem(at: captured.wal, to: try context.stage.url(walPath))

        var newRecipe = recipe
        newRecipe.key = .raw(FixtureKeys.otherRawKey)
        let newKeyObservation = try observer.observation(
            path, sidecars: [walPath], key: newRecipe.key, cipher: recipe.cipher, serializers: recipe.serializers)
        let oldKeyObservation = try observer.observation(
            path, sidecars: [walPath], key: recipe.key, cipher: recipe.cipher, serializers: recipe.serializers)
        let withNewKey = newKeyObservation.expectation
        let withOldKey = oldKeyObservation.expectation
        guard withNewKey.openError != nil || withNewKey.readError != nil || withNewKey.rowErrors != nil else {
            throw GeneratorError("\(path): the stale WAL went unnoticed with the new key")
        }
        let withoutWAL = try observer.observe(
            path, key: newRecipe.key, cipher: recipe.cipher, serializers: recipe.serializers)
        guard try JSONValue.from(withoutWAL.rows ?? []) == JSONValue.from(captured.full.rows ?? []),
            withoutWAL.snapshot == captured.full.snapshot
        else { throw GeneratorError("\(path): the export alone does not hold the old database's rows") }
        print(
            "  \(path) with the new key: \(Self.describe(withNewKey)); failed open modified \(newKeyObservation.modifiedByFailedOpen)"
        )
        print(
            "  \(path) with the old key: \(Self.describe(withOldKey)); failed open modified \(oldKeyObservation.modifiedByFailedOpen)"
        )
        let origin = context.origin(
            "a WAL-mode database with uncheckpointed commits (as wal-uncheckpointed.db) was exported with Connection.backup to a new raw key; the export was put at the old path while the OLD -wal stayed beside it (no checkpoint, no removal of -wal)"
        )
        context.addDatabase(
            path, origin: origin, recipe: newRecipe, sidecars: [walPath],
            checks: [
                newKeyObservation.check("new key with the stale WAL"),
                oldKeyObservation.check("old key with the stale WAL", key: recipe.key),
                Check(name: "new key without the stale WAL", withoutSidecars: true, expect: withoutWAL),
            ])
        context.addSidecar(walPath, of: path, origin: origin)
    }
}
