import Coffer
import Foundation

/// What one generator run shares: the staging area, the versions to record, and the entries made so far.
final class GeneratorContext {
    /// This generator's version, recorded in every entry it makes.
    static let generatorVersion = "1.1.0"
    static let generatorName = "coffer-fixtures (Sources/coffer-fixtures)"

    let stage: FixtureStage
    /// The folder name inside `coffer/` and `damaged/`, such as `v1`.
    let folder: String
    /// The Coffer source revision that wrote the files.
    let cofferRevision: String
    private(set) var sqlcipherVersion = "unknown"
    private(set) var sqliteVersion = "unknown"
    private(set) var entries: [ManifestEntry] = []
    /// The first check's expectation of each database entry: damaged fixtures start from it.
    private(set) var contentsByPath: [String: Expectation] = [:]

    init(stage: FixtureStage, folder: String, cofferRevision: String) {
        self.stage = stage
        self.folder = folder
        self.cofferRevision = cofferRevision
    }

    /// `coffer/<folder>/<name>`.
    func cofferPath(_ name: String) -> String { "coffer/\(folder)/\(name)" }
    /// `damaged/<folder>/<name>`.
    func damagedPath(_ name: String) -> String { "damaged/\(folder)/\(name)" }

    /// Records the library versions a database reports.
    func noteVersions(of database: Database) {
        sqlcipherVersion = database.cipherVersion
        sqliteVersion = database.sqliteVersion
    }

    /// Provenance for a file written (or derived) in this run.
    func origin(_ method: String, derivedFrom: String? = nil) -> Origin {
        Origin(
            generator: Self.generatorName, generatorVersion: Self.generatorVersion, writer: "Coffer",
            writerVersion: "git \(cofferRevision)", sqlcipherVersion: sqlcipherVersion, sqliteVersion: sqliteVersion,
            method: method, derivedFrom: derivedFrom)
    }

    /// Adds an entry; its checksum and size are filled in by ``finishEntries()``.
    func add(_ entry: ManifestEntry) {
        entries.append(entry)
    }

    /// Adds a database entry.
    func addDatabase(
        _ path: String, origin: Origin, recipe: FixtureDatabase.Recipe, formatVersion: Int? = 3,
        sidecars: [String]? = nil, secondaryIndexes: [IndexSpec]? = nil, checks: [Check]
    ) {
        contentsByPath[path] = checks.first?.expect
        add(
            ManifestEntry(
                path: path, type: .database, sha256: "", size: 0, origin: origin, sidecars: sidecars, sidecarOf: nil,
                key: recipe.key, cipher: recipe.cipher, formatVersion: formatVersion,
                keyrings: recipe.keyrings.isEmpty ? nil : recipe.keyrings,
                serializers: recipe.serializers.isEmpty ? nil : recipe.serializers,
                secondaryIndexes: secondaryIndexes, checks: checks))
    }

    /// The contents expectation recorded for a database entry.
    /// - Throws: ``GeneratorError`` when there is none.
    func contents(of path: String) throws -> Expectation {
        guard let contents = contentsByPath[path] else { throw GeneratorError("no contents recorded for \(path)") }
        return contents
    }

    /// Adds the entry of a sidecar file.
    func addSidecar(_ path: String, of database: String, origin: Origin) {
        add(
            ManifestEntry(
                path: path, type: .sidecar, sha256: "", size: 0, origin: origin, sidecars: nil, sidecarOf: database,
                key: nil, cipher: nil, formatVersion: nil, keyrings: nil, serializers: nil, secondaryIndexes: nil,
                checks: []))
    }

    /// Fills in every entry's checksum and size from the staged file.
    /// - Throws: when a staged file is missing.
    func finishEntries() throws -> [ManifestEntry] {
        try entries.map { entry in
            var entry = entry
            let url = stage.stagedURL(entry.path)
            entry.sha256 = try FixtureStage.sha256(of: url)
            entry.size = try FixtureStage.size(of: url)
            return entry
        }
    }
}
