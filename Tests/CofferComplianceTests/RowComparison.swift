import Foundation
import Testing

/// Compares the rows read back with the manifest: the same rows, the same values, the same
/// pinned bytes, and exactly the expected failures.
struct RowComparison {
    let expected: FixtureExpectation
    let observed: RowReader.Result

    /// Records an issue for every difference.
    /// - Throws: ``FixtureFailure`` for malformed hex in the manifest.
    func verify() throws {
        let rows = Dictionary(
            (expected.rows ?? []).map { ("\($0.collection)/\($0.key)", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(observed.rows.keys) == Set(rows.keys), "the rows that read")
        for (id, spec) in rows.sorted(by: { $0.key < $1.key }) {
            guard let row = observed.rows[id] else { continue }
            #expect(row.object == spec.object, "object of \(id)")
            #expect(row.metadata == spec.metadata, "metadata of \(id)")
            try pin(row.objectBytes, exact: spec.objectBytesHex, header: spec.objectHeaderHex, "object blob of \(id)")
            try pin(
                row.metadataBytes, exact: spec.metadataBytesHex, header: spec.metadataHeaderHex,
                "metadata blob of \(id)")
        }
        var errors: [String: FixtureError] = [:]
        for failure in expected.rowErrors ?? [] {
            errors["\(failure.collection)/\(failure.key).\(failure.column)"] = failure.error
        }
        #expect(observed.errors == errors, "the row columns that fail, and how")
    }

    private func pin(_ bytes: Data?, exact: String?, header: String?, _ what: String) throws {
        if let exact { #expect(bytes.map { Hex.string($0) } == exact, "\(what) (exact bytes)") }
        if let header {
            let prefix = bytes.map { Hex.string($0.prefix(header.count / 2)) }
            #expect(prefix == header, "\(what) (header)")
        }
    }
}
