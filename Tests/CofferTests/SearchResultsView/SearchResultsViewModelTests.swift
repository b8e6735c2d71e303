import CofferSQLite
import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Random writes and searches against a model: after every transaction, on a second connection,
/// each form of the view shows exactly the notes of its collection that match the query, in key
/// order, each with the snippet the search gives it.
extension SearchResultsViewTests {
    static let words = ["alpha", "beta", "gamma", "delta", "omega"]

    @Test(arguments: Form.all)
    func randomWritesAndSearchesMatchTheModel(form: Form) throws {
        try checkRandomWritesAndSearches(form, probeThreshold: nil)
    }

    /// The same with every written row checked in the probe table (persistent forms only).
    @Test(arguments: Form.all.filter { $0.persistent })
    func randomWritesCheckedInTheProbeMatchTheModel(form: Form) throws {
        try checkRandomWritesAndSearches(form, probeThreshold: 0)
    }

    private func checkRandomWritesAndSearches(_ form: Form, probeThreshold: Int?) throws {
        let seed = UInt64(form.overParent ? 1 : 2) * 100 + UInt64(form.persistent ? 10 : 20) + (form.snippets ? 1 : 2)
        var random = SeededGenerator(seed: seed)
        let test = try TestDatabase()
        // The parent is registered before the search in half the cases: rows are then placed at the flush.
        if form.overParent && form.snippets {
            try test.database.register(Self.parentView(persistent: form.persistent), withName: "order")
            try test.database.register(Self.search(), withName: "fts")
            try test.database.register(Self.results(form, probeThreshold: probeThreshold), withName: "results")
        } else {
            try Self.register(form, in: test.database, probeThreshold: probeThreshold)
        }
        let writer = try test.connection()
        let reader = try test.connection()
        var model: [String: String] = [:]
        var query = ""
        for step in 0..<60 {
            try writer.readWrite { tx throws in
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let key = "n\(Int.random(in: 0..<25, using: &random))"
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<6:
                        let text = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                            Self.words.randomElement(using: &random) ?? ""
                        }.joined(separator: " ")
                        try tx.setObject(text, forKey: key, inCollection: "notes")
                        model[key] = text
                    case 6..<8:
                        try tx.removeObject(forKey: key, inCollection: "notes")
                        model[key] = nil
                    case 8:
                        query =
                            Int.random(in: 0..<5, using: &random) == 0
                            ? "" : (Self.words.randomElement(using: &random) ?? "")
                        try Self.view(tx).performSearch(for: query)
                    default:
                        try tx.setObject("alpha draft", forKey: key, inCollection: "drafts")
                    }
                }
            }
            let expected = model.filter { !query.isEmpty && $0.value.split(separator: " ").contains(Substring(query)) }
                .keys.sorted()
            try reader.read { tx throws in
                #expect(try Self.keys(tx) == expected, "step \(step), seed \(seed), query \(query)")
                if form.persistent {
                    // The probe never keeps a row's text past a check.
                    #expect(try tx.core.sqlite.scalarText("SELECT COUNT(*) FROM \"fts_results_probe\"") == "0")
                }
                if form.snippets {
                    for key in expected {
                        #expect(
                            try Self.view(tx).snippet(forKey: key, inCollection: "notes")?.contains("[\(query)]")
                                == true,
                            "step \(step): snippet of \(key)")
                    }
                }
            }
        }
    }
}
