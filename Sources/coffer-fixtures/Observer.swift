import Coffer
import Foundation

/// Opens a copy of staged fixture files the way the compliance suite does and reports what
/// Coffer gives, in manifest form.
///
/// Used for damaged files whose exact outcome depends on the bytes (which rows share a damaged
/// page); the generator checks each observation against what must hold before recording it.
struct Observer {
    let context: GeneratorContext

    /// What an observation saw, and which copied files a failed open changed or removed.
    struct Observation {
        var expectation: Expectation
        var modifiedByFailedOpen: [String]

        /// The check recording this observation; a failed open that changed files is a known
        /// issue of the library, stated in the check so the suite tracks it.
        func check(_ name: String, key: KeySpec? = nil, withoutSidecars: Bool? = nil) -> Check {
            var check = Check(name: name, key: key, withoutSidecars: withoutSidecars, expect: expectation)
            if !modifiedByFailedOpen.isEmpty {
                check.knownIssue =
                    "Coffer's failed open modified \(modifiedByFailedOpen.joined(separator: ", ")): the suite requires that no file is modified"
            }
            return check
        }
    }

    /// What opening `path` (with `sidecars` beside it) and reading every row gives.
    /// - Throws: I/O errors, or ``GeneratorError`` for an error that is not a ``DatabaseError``.
    func observe(
        _ path: String, sidecars: [String] = [], key: KeySpec, cipher: CipherSpec,
        serializers: [CollectionSerializers] = [], keyrings: [String: KeyringSpec] = [:]
    ) throws -> Expectation {
        try observation(
            path, sidecars: sidecars, key: key, cipher: cipher, serializers: serializers, keyrings: keyrings
        ).expectation
    }

    /// Like ``observe(_:sidecars:key:cipher:serializers:keyrings:)``, also reporting files a failed open changed.
    /// - Throws: I/O errors, or ``GeneratorError`` for an error that is not a ``DatabaseError``.
    func observation(
        _ path: String, sidecars: [String] = [], key: KeySpec, cipher: CipherSpec,
        serializers: [CollectionSerializers] = [], keyrings: [String: KeyringSpec] = [:]
    ) throws -> Observation {
        let directory = try context.stage.scratchDirectory("observe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent((path as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: context.stage.stagedURL(path), to: url)
        var copies = [url]
        for sidecar in sidecars {
            let suffix = String(sidecar.dropFirst(path.count))
            copies.append(URL(fileURLWithPath: url.path + suffix))
            try FileManager.default.copyItem(at: context.stage.stagedURL(sidecar), to: copies[copies.count - 1])
        }
        let before = try copies.map { try FixtureStage.sha256(of: $0) }
        var options = DatabaseOptions()
        options.key = key.databaseKey { context.stage.stagedURL($0) }
        options.cipher = cipher.settings
        let database: Database
        do {
            database = try Database(url: url, options: options)
        } catch let error as DatabaseError {
            let modified = zip(copies, before).filter { (try? FixtureStage.sha256(of: $0.0)) != $0.1 }
            return Observation(
                expectation: Expectation(openError: ErrorSpec(error)),
                modifiedByFailedOpen: modified.map { $0.0.lastPathComponent })
        }
        try database.register(serializers, keyrings: try keyrings.mapValues { try $0.keyring() })
        var expectation = Expectation()
        expectation.snapshot = database.snapshot
        expectation.pageSize = database.pageSize
        do {
            let (rows, errors) = try database.newConnection().read { tx in try readAll(tx, serializers) }
            expectation.rows = rows
            expectation.rowErrors = errors.isEmpty ? nil : errors
        } catch let error as DatabaseError {
            expectation.readError = ErrorSpec(error)
        }
        return Observation(expectation: expectation, modifiedByFailedOpen: [])
    }

    private func readAll(
        _ tx: ReadTransaction, _ serializers: [CollectionSerializers]
    ) throws -> ([RowSpec], [RowErrorSpec]) {
        var rows: [RowSpec] = []
        var errors: [RowErrorSpec] = []
        for collection in try tx.allCollections().sorted() {
            let chains = serializers.first { $0.collection == collection }
            for key in try tx.allKeys(inCollection: collection).sorted() {
                guard let chains else { throw GeneratorError("no chain for collection \"\(collection)\"") }
                var row = RowSpec(collection: collection, key: key, object: .null)
                var failed = false
                do {
                    guard let object = try tx.object(forKey: key, inCollection: collection) else { continue }
                    row.object = try chains.object.codec.json(object)
                    if let bytes = try tx.serializedObject(forKey: key, inCollection: collection) {
                        (row.objectBytesHex, row.objectHeaderHex) = BlobBytes.pin(bytes)
                    }
                } catch let error as DatabaseError {
                    errors.append(
                        RowErrorSpec(collection: collection, key: key, column: "object", error: ErrorSpec(error)))
                    failed = true
                }
                do {
                    if let metadata = try tx.metadata(forKey: key, inCollection: collection),
                        let chain = chains.metadata
                    {
                        row.metadata = try chain.codec.json(metadata)
                        if let bytes = try tx.serializedMetadata(forKey: key, inCollection: collection) {
                            (row.metadataBytesHex, row.metadataHeaderHex) = BlobBytes.pin(bytes)
                        }
                    }
                } catch let error as DatabaseError {
                    errors.append(
                        RowErrorSpec(collection: collection, key: key, column: "metadata", error: ErrorSpec(error)))
                    failed = true
                }
                if !failed { rows.append(row) }
            }
        }
        return (rows, errors)
    }
}

extension ErrorSpec {
    /// The manifest form of a Coffer error.
    init(_ error: DatabaseError) {
        code = error.code.rawValue
        serializationCode = (error.underlying as? SerializationError).map { "\($0.code)" }
    }
}
