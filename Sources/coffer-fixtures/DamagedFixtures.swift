import CofferFixtureSupport
import Coffer
import Foundation

/// Damaged fixtures, each made from a good fixture of this run by byte surgery.
struct DamagedFixtures {
    let context: GeneratorContext
    var observer: Observer { Observer(context: context) }

    /// The passphrase fixture with 1024-byte pages that page-level damage starts from.
    var pageBase: String { context.cofferPath("passphrase-sqlcipher3-defaults.db") }

    /// Makes every damaged fixture.
    /// - Throws: ``DatabaseError``, ``GeneratorError`` or I/O errors.
    func make() throws {
        try makePageDamage()
        try makeTruncations()
        try makeEmptyFile()
        try makeDamagedKeyFile()
        try makeValueDamage()
        try makeStaleWAL()
    }

    /// The base's key, settings and chains, for a copy of it.
    func recipe(of base: String) throws -> FixtureDatabase.Recipe {
        switch base {
        case pageBase:
            FixtureDatabase.Recipe(
                key: .passphrase(FixtureKeys.passphrase),
                cipher: CipherSpec(pageSize: 1024, kdfIterations: 64_000, useHMAC: true),
                serializers: CofferFixtures.noteSerializers)
        default:
            throw GeneratorError("no recipe for \(base)")
        }
    }

    /// Stages a byte-for-byte copy of the staged fixture `base` as `path`.
    /// - Throws: I/O errors.
    func copy(_ base: String, to path: String) throws -> URL {
        let url = try context.stage.url(path)
        try FileManager.default.copyItem(at: context.stage.stagedURL(base), to: url)
        return url
    }

    private func makePageDamage() throws {
        let recipe = try recipe(of: pageBase)
        let pageSize = 1024
        let firstPage = context.damagedPath("page1-flipped.db")
        // Byte 200 lies in page 1's ciphertext (bytes 16…975 with a 1024-byte page).
        try ByteSurgery.flip(at: 200, in: try copy(pageBase, to: firstPage))
        try record(
            firstPage, recipe: recipe, method: "one byte flipped at offset 200, inside page 1's ciphertext",
            derivedFrom: pageBase, mustBe: "wrongKey")

        let treePage = context.damagedPath("btree-page-flipped.db")
        // Page 3 is the first b-tree page after the schema (page 1) and auto-vacuum's pointer map (page 2).
        try ByteSurgery.flip(at: 2 * pageSize + 300, in: try copy(pageBase, to: treePage))
        try record(
            treePage, recipe: recipe,
            method: "one byte flipped at offset \(2 * pageSize + 300), inside the ciphertext of page 3 (a b-tree page)",
            derivedFrom: pageBase, mustBe: nil)

        let laterPage = context.damagedPath("later-page-flipped.db")
        let url = try copy(pageBase, to: laterPage)
        let pages = try FixtureStage.size(of: url) / pageSize
        let offset = (pages - 1) * pageSize + 300
        try ByteSurgery.flip(at: offset, in: url)
        try record(
            laterPage, recipe: recipe,
            method:
                "one byte flipped at offset \(offset), inside the ciphertext of the last page (page \(pages) of \(pages)), an overflow page of notes/long",
            derivedFrom: pageBase, mustBe: nil)
    }

    private func makeTruncations() throws {
        let recipe = try recipe(of: pageBase)
        let onePage = context.damagedPath("truncated-one-page.db")
        try ByteSurgery.truncate(try copy(pageBase, to: onePage), by: 1024)
        try record(
            onePage, recipe: recipe, method: "the last 1024-byte page cut off", derivedFrom: pageBase, mustBe: nil)

        let hundred = context.damagedPath("truncated-100-bytes.db")
        try ByteSurgery.truncate(try copy(pageBase, to: hundred), by: 100)
        try record(hundred, recipe: recipe, method: "the last 100 bytes cut off", derivedFrom: pageBase, mustBe: nil)
    }

    private func makeEmptyFile() throws {
        let path = context.damagedPath("empty.db")
        guard FileManager.default.createFile(atPath: try context.stage.url(path).path, contents: Data()) else {
            throw GeneratorError("cannot create \(path)")
        }
        let recipe = try recipe(of: pageBase)
        context.addDatabase(
            path, origin: context.origin("a zero-length file where a database was expected"), recipe: recipe,
            formatVersion: nil,
            checks: [
                Check(name: "with the key", expect: .openError("emptyFile")),
                Check(name: "without a key", key: KeySpec.none, expect: .openError("emptyFile")),
            ])
        try verifyEmptyFileErrors(path, recipe: recipe)
    }

    private func makeDamagedKeyFile() throws {
        let base = context.cofferPath("envelope.coffer-key")
        let path = context.damagedPath("envelope-flipped.coffer-key")
        let url = try copy(base, to: path)
        try ByteSurgery.replaceFirstBase64Character(ofField: "ciphertext", in: url)
        context.add(
            ManifestEntry(
                path: path, type: .keyFile, sha256: "", size: 0,
                origin: context.origin(
                    "the first base64 character of the slot's ciphertext replaced (still valid JSON and base64; the checksum no longer matches)",
                    derivedFrom: base),
                sidecars: nil, sidecarOf: nil, key: nil, cipher: nil, formatVersion: nil, keyrings: nil,
                serializers: nil, secondaryIndexes: nil,
                checks: [
                    Check(
                        name: "unwrap", unwrapPassphrase: FixtureKeys.keyFilePassphrase,
                        expect: Expectation(keyFileError: "damaged"))
                ]))
    }

    /// Observes a damaged database, checks the outcome against `mustBe` (an open error code) or,
    /// when nil, that something fails with a typed error, and adds the entry.
    func record(
        _ path: String, recipe: FixtureDatabase.Recipe, method: String, derivedFrom: String, mustBe: String?
    ) throws {
        let observation = try observer.observation(
            path, key: recipe.key, cipher: recipe.cipher, serializers: recipe.serializers, keyrings: recipe.keyrings)
        let observed = observation.expectation
        if let mustBe {
            guard observed.openError?.code == mustBe else {
                throw GeneratorError("\(path): expected open error \(mustBe), observed \(Self.describe(observed))")
            }
        } else {
            guard observed.openError != nil || observed.readError != nil || observed.rowErrors != nil else {
                throw GeneratorError("\(path): the damage went unnoticed")
            }
        }
        try checkSurvivors(observed, against: try context.contents(of: derivedFrom), path: path)
        print(
            "  \(path): \(Self.describe(observed))\(observation.modifiedByFailedOpen.isEmpty ? "" : "; FAILED OPEN MODIFIED \(observation.modifiedByFailedOpen)")"
        )
        context.addDatabase(
            path, origin: context.origin(method, derivedFrom: derivedFrom), recipe: recipe,
            checks: [observation.check("damage is reported")])
    }

    /// Rows a damaged file still reads must be exactly the base's.
    private func checkSurvivors(_ observed: Expectation, against base: Expectation, path: String) throws {
        let baseRows = try Dictionary(
            (base.rows ?? []).map { ("\($0.collection)/\($0.key)", try JSONValue.from($0)) },
            uniquingKeysWith: { a, _ in a })
        for row in observed.rows ?? [] where baseRows["\(row.collection)/\(row.key)"] != (try JSONValue.from(row)) {
            throw GeneratorError("\(path): row \(row.collection)/\(row.key) reads back different from its base")
        }
    }

    /// Checks that Coffer reports the empty file as `emptyFile`, with and without a key.
    func verifyEmptyFileErrors(_ path: String, recipe: FixtureDatabase.Recipe) throws {
        for check in [recipe.key, KeySpec.none] {
            let observed = try observer.observe(path, key: check, cipher: recipe.cipher)
            guard observed.openError?.code == "emptyFile" else {
                throw GeneratorError("\(path): expected emptyFile, observed \(Self.describe(observed))")
            }
        }
    }

    /// A one-line summary of an observation, for the generator's output.
    static func describe(_ observed: Expectation) -> String {
        if let error = observed.openError { return "open fails: \(error.code)" }
        if let error = observed.readError { return "opens; reading fails: \(error.code)" }
        let failures = (observed.rowErrors ?? []).map {
            "\($0.collection)/\($0.key).\($0.column): \($0.error.code)\($0.error.serializationCode.map { "/\($0)" } ?? "")"
        }
        return
            "opens; \(observed.rows?.count ?? 0) rows read; failing: \(failures.isEmpty ? "none" : failures.joined(separator: ", "))"
    }
}
