import Coffer
import CofferTestSupport
import Foundation
import Testing

extension CrashConsistency {
    /// What the files directory and the database held after a kill, before a Relationship was
    /// registered again.
    struct AttachmentsState {
        /// The notes in the database.
        var notes: Set<String>
        /// The notes some of whose files exist, with how many do.
        var fileCounts: [String: Int]
    }

    /// The notes of `url` and the files of `directory`, grouped by note.
    static func readAttachments(_ url: URL, key: Data, directory: URL) throws -> AttachmentsState {
        var notes: Set<String> = []
        do {
            var options = DatabaseOptions()
            options.key = .raw(key)
            options.createIfMissing = false
            let db = try TestSupport.open(url, options: options)
            try db.newConnection().read { tx in
                try tx.enumerateKeys(inCollection: "notes") { key, _ in notes.insert(key) }
            }
        }
        try TestSupport.waitUntilClosed(url)
        var fileCounts: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            guard let dash = name.lastIndex(of: "-") else { continue }
            fileCounts[String(name[..<dash]), default: 0] += 1
        }
        return AttachmentsState(notes: notes, fileCounts: fileCounts)
    }

    /// Registers the Relationship on `url` (which finishes the deletions a crash interrupted),
    /// waits for the deletions, and returns the number of edges left.
    static func finishDeletions(_ url: URL, key: Data) async throws -> Int {
        let edges: Int
        do {
            var options = DatabaseOptions()
            options.key = .raw(key)
            let db = try TestSupport.open(url, options: options)
            let relationship = Relationship()
            try db.register(relationship, withName: "attachments")
            await relationship.waitForFileDeletions()
            edges = try await db.newConnection().read { tx in
                try tx.extension("attachments", as: RelationshipTransaction.self).edgeCount()
            }
        }
        try TestSupport.waitUntilClosed(url)
        return edges
    }

    /// Checks that files a kill left between a removal's commit and their deletion go at the next registration.
    ///
    /// The commit records the deletions it owes, so the next registration deletes the files;
    /// files of a note that stays are never deleted.
    @Test func killedBetweenARemovalAndItsFileDeletionsTheNextRegistrationFinishesThem() async throws {
        let seed = StressSettings.seed()
        print("CrashConsistency.attachments seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        let kills = StressSettings.kills(ci: 18, stress: 300)
        let filesPerNote = 64
        let directory = TemporaryDirectory("coffer-crash-attachments")
        let files = directory.url.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let url = directory.file("attachments.sqlite")
        let key = TestSupport.randomKey()
        let environment = ["COFFER_STRESS_KEY": StressSettings.hex(key)]
        var landed = 0
        var unsaved = 0
        var kept: Set<String> = []
        for iteration in 0..<kills {
            let run = "r\(iteration)"
            let child = try StressChild(
                [
                    "attachments", "--database", url.path, "--files", files.path, "--run", run,
                    "--files-per-note", "\(filesPerNote)",
                ], environment: environment, logDirectory: directory.url)
            try child.waitUntilReady()
            if iteration % 3 == 2 {
                // Right after a removal is acknowledged, while its files may still be going.
                try child.waitForLine(startingWith: "removed \(Int.random(in: 0..<4, using: &rng))")
            } else {
                pause(microseconds: Int.random(in: 0..<100_000, using: &rng))
            }
            #expect(child.killNow(), "iteration \(iteration): the child exited on its own: \(child.errorOutput)")
            let saved = Set(child.lines.compactMap { $0.hasPrefix("saved ") ? "\(run)-\($0.dropFirst(6))" : nil })

            let state = try Self.readAttachments(url, key: key, directory: files)
            let context = "iteration \(iteration) seed \(seed)"
            for note in state.notes {
                #expect(state.fileCounts[note] == filesPerNote, "\(context): note \(note) lost files")
            }
            for note in state.fileCounts.keys where !state.notes.contains(note) {
                if note.hasPrefix("\(run)-") && !saved.contains(note) {
                    // Killed before the note's save committed (maybe while its files were being
                    // made): files no record knows of, which the app that made them removes (here,
                    // the test).
                    for file in 0..<filesPerNote {
                        try? FileManager.default.removeItem(at: files.appendingPathComponent("\(note)-\(file)"))
                    }
                    unsaved += 1
                } else {
                    // The removal committed; the kill came before its deletions finished.
                    landed += 1
                }
            }

            let edges = try await Self.finishDeletions(url, key: key)
            let after = try Self.readAttachments(url, key: key, directory: files)
            #expect(after.notes == state.notes, "\(context)")
            #expect(Set(after.fileCounts.keys) == after.notes, "\(context): files of removed notes remain")
            for note in after.notes {
                #expect(after.fileCounts[note] == filesPerNote, "\(context): note \(note) lost files")
            }
            #expect(edges == after.notes.count * filesPerNote, "\(context)")
            kept = after.notes
        }
        #expect(landed > 0, "no kill landed between a removal's commit and its file deletions")
        print(
            "CrashConsistency.attachments: \(kills) kills, \(landed) between a removal's commit and its file "
                + "deletions, \(unsaved) before a save committed, \(kept.count) notes kept")
    }
}
