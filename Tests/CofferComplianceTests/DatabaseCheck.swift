import CofferFixtureSupport
import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Runs one check of a database fixture on copies in a temporary directory: opens, compares
/// the exact contents or the exact typed error, and proves a failed open changed no file.
struct DatabaseCheck {
    let entry: FixtureEntry
    let check: FixtureCheck
    var expect: FixtureExpectation { check.expect }

    /// Runs the check.
    /// - Throws: when copying or a required step fails; mismatches are recorded as issues.
    func run() throws {
        let directory = TemporaryDirectory("coffer-compliance")
        var url = try FixtureFiles.copy(entry.path, into: directory.url)
        var copies = [url]
        if check.withoutSidecars != true {
            for sidecar in entry.sidecars ?? [] {
                guard sidecar.hasPrefix(entry.path) else {
                    throw FixtureFailure("\(sidecar) is not named after \(entry.path)")
                }
                let name = url.lastPathComponent + sidecar.dropFirst(entry.path.count)
                copies.append(try FixtureFiles.copy(sidecar, into: directory.url, as: name))
            }
        }
        let keys = directory.url.appendingPathComponent("keys", isDirectory: true)
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let keySpec = check.key ?? entry.key ?? FixtureKey.none
        for spec in [keySpec, check.importPlaintext?.key].compactMap({ $0 }) {
            if let path = spec.keyFilePath { try FixtureFiles.copy(path, into: keys) }
        }
        let keyFileURL = { (path: String) in keys.appendingPathComponent((path as NSString).lastPathComponent) }
        var options = DatabaseOptions()
        options.key = try FixtureCodecs.databaseKey(keySpec, keyFileURL: keyFileURL)
        options.cipher = FixtureCodecs.cipher(check.cipher ?? entry.cipher)

        if let importSpec = check.importPlaintext {
            let imported = directory.file("imported.db")
            let key = try #require(try FixtureCodecs.databaseKey(importSpec.key, keyFileURL: keyFileURL))
            let cipher = FixtureCodecs.cipher(importSpec.cipher)
            try Database.encryptPlaintextDatabase(at: url, to: imported, key: key, cipher: cipher)
            #expect(try FixtureFiles.sha256(url) == entry.sha256, "encrypting the copy changed the plaintext source")
            url = imported
            copies = [imported]
            options.key = key
            options.cipher = cipher
        }
        if let prefix = expect.fileStartsWithHex {
            #expect(Hex.string(try Data(contentsOf: url).prefix(prefix.count / 2)) == prefix)
        }

        let before = try copies.map { try FixtureFiles.sha256($0) }
        let database: Database
        do {
            database = try Database(url: url, options: options)
        } catch let error as DatabaseError {
            #expect(expect.openError == FixtureCodecs.error(error), "open failed with \(error)")
            let after = copies.map { try? FixtureFiles.sha256($0) }
            let unchanged = {
                #expect(after == before, "a failed open modified \(copies.map(\.lastPathComponent)) (or removed one)")
            }
            if let knownIssue = check.knownIssue {
                withKnownIssue(Comment(rawValue: knownIssue), unchanged)
            } else {
                unchanged()
            }
            return
        }
        if let openError = expect.openError {
            Issue.record("the database opened; expected \(openError)")
            return
        }
        try verifyContents(of: database)
    }

    private func verifyContents(of database: Database) throws {
        if let snapshot = expect.snapshot { #expect(database.snapshot == snapshot, "snapshot") }
        if let pageSize = expect.pageSize { #expect(database.pageSize == pageSize, "page size") }
        if let names = expect.extensionNames {
            #expect(database.previouslyRegisteredExtensionNames.sorted() == names.sorted(), "recorded extensions")
        }
        let keyrings = try (check.keyrings ?? entry.keyrings ?? [:]).mapValues { try FixtureCodecs.keyring($0) }
        for serializers in entry.serializers ?? [] {
            database.registerObjectSerializer(
                try FixtureCodecs.chain(serializers.object, role: .object, keyrings: keyrings),
                forCollection: serializers.collection)
            if let metadata = serializers.metadata {
                database.registerMetadataSerializer(
                    try FixtureCodecs.chain(metadata, role: .metadata, keyrings: keyrings),
                    forCollection: serializers.collection)
            }
        }
        let handlerCalls = Locked(0)
        for index in entry.secondaryIndexes ?? [] {
            try database.register(try Self.persistedIndex(index, calls: handlerCalls), withName: index.name)
        }
        guard expect.rows != nil || expect.rowErrors != nil || expect.readError != nil else { return }
        let connection = try database.newConnection()
        let observed: RowReader.Result
        do {
            observed = try connection.read { tx in try RowReader(serializers: entry.serializers ?? []).readAll(tx) }
        } catch let error as DatabaseError {
            #expect(expect.readError == FixtureCodecs.error(error), "reading the rows failed with \(error)")
            return
        }
        if let readError = expect.readError {
            Issue.record("every row was read; expected \(readError)")
            return
        }
        try RowComparison(expected: expect, observed: observed).verify()
        if let indexes = expect.secondaryIndexes {
            try connection.read { tx in
                for contents in indexes {
                    let spec = try #require(entry.secondaryIndexes?.first { $0.name == contents.name })
                    try Self.verifyIndex(contents, columns: spec.columns.map(\.name), tx)
                }
            }
            #expect(
                handlerCalls.value == 0, "re-registering the index ran its handler: the persisted state was not reused")
        }
    }

    /// The index as persisted; its handler only counts calls, which must not happen when the
    /// registration reuses the persisted table.
    private static func persistedIndex(_ spec: FixtureIndex, calls: Locked<Int>) throws -> SecondaryIndex {
        let columns = try spec.columns.map { column in
            guard let type = SecondaryIndexSetup.ColumnType(rawValue: column.type) else {
                throw FixtureFailure("unknown column type \(column.type)")
            }
            return SecondaryIndexSetup.Column(column.name, type)
        }
        return SecondaryIndex(
            setup: SecondaryIndexSetup(columns),
            handler: .byRow { _, _, _, _, _, _ in calls.withLock { $0 += 1 } },
            versionTag: spec.versionTag,
            allowedCollections: spec.allowedCollections.map { .only(Set($0)) } ?? .all)
    }

    private static func verifyIndex(_ contents: FixtureIndexContents, columns: [String], _ tx: ReadTransaction) throws {
        let index = try #require(tx.secondaryIndex(contents.name), "index \(contents.name) is not registered")
        let inOrder = try DatabaseQuery(format: "ORDER BY rowid")
        let keys = try index.keys(matching: inOrder)
        var entries = keys.map { (collection: $0.collection, key: $0.key, values: [String: JSONValue]()) }
        for column in columns {
            var position = 0
            try index.enumerateIndexedValues(inColumn: column, matching: inOrder) { value, _ in
                if position < entries.count { entries[position].values[column] = JSONValue(value) }
                position += 1
            }
            #expect(position == entries.count, "column \(column) has another number of entries")
        }
        let observed = Dictionary(
            entries.map { ("\($0.collection)/\($0.key)", $0.values) }, uniquingKeysWith: { first, _ in first })
        let expected = Dictionary(
            contents.entries.map { ("\($0.collection)/\($0.key)", $0.values) }, uniquingKeysWith: { first, _ in first })
        #expect(observed == expected, "entries of index \(contents.name)")
    }
}

extension JSONValue {
    /// An index value as the manifest records it (bytes as hex).
    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .number(Double(number))
        case .real(let number): self = .number(number)
        case .text(let text): self = .string(text)
        case .blob(let bytes): self = .string(Hex.string(bytes))
        }
    }
}
