import Coffer
import Foundation

/// V4: the changes a long-lived reader computes for one single-row commit on W1v's view (N rows in
/// ten groups, after W2v).
///
/// A new connection with its caches off begins a long-lived read transaction and keeps
/// `ViewMappings` of the ten groups. Then, `changesRepetitions + 1` times, the W1v connection
/// commits one new record at a random time of a group, and the reader moves to the new snapshot
/// (`beginLongLivedReadTransaction()`, printed as `catch_up_s`) and computes the changes: the
/// view's records from the changesets and the group counts in the new snapshot (`counts_s`) and
/// `ViewChanges.advance` (`advance_s`). V4 is the median of those three together; the first round
/// is left out, as it reads the view's layout on the reader.
extension CofferViewSuite {
    /// The workload id.
    static let changesID = "V4"
    /// How many commits V4 times.
    static let changesRepetitions = 101
    /// What V4 does, for the report.
    static let changesNote =
        "one-row-commit-then-long-lived-reader:records+groupCounts+ViewChanges.advance(10-groups),"
        + "median-of-\(changesRepetitions),catch-up-timed-apart"

    /// Measures V4 on `database`, whose view `writer` just filled with records `0 ..< first`.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a commit's changes are not one row insert.
    static func measureChanges(_ database: Database, writer: Connection, first: Int) throws -> WorkloadResult {
        let reader = try database.newConnection(config: CofferStore.uncached)
        func counts() throws -> [String: Int] {
            try reader.read { tx in try tx.extension(viewName, as: AutoViewTransaction.self).groupCounts() }
        }
        _ = try reader.beginLongLivedReadTransaction()
        var mappings = ViewMappings(groups: ViewStamp.groupNames, view: viewName)
        mappings.update(groupCounts: try counts())
        var samples: (total: [Double], catchUp: [Double], counts: [Double], advance: [Double]) = ([], [], [], [])
        for number in 0...changesRepetitions {
            let user = User(index: first + number, rev: 0)
            let stamp = ViewStamp.of(index: first + number, appending: false)
            try writer.readWrite { tx in
                try tx.setObject(user, forKey: user.id, inCollection: Records.collection, withMetadata: stamp)
            }
            let catchUp = try Stopwatch.measure { try reader.beginLongLivedReadTransaction() }
            let newCounts = try Stopwatch.measure {
                let records = catchUp.value.flatMap {
                    $0.viewChangeRecords(inView: viewName)
                }
                return (records, try counts())
            }
            let changes = Stopwatch.measure {
                ViewChanges.advance(&mappings, groupCounts: newCounts.value.1, records: newCounts.value.0)
            }
            let total = (value: changes.value, seconds: newCounts.seconds + changes.seconds)
            guard total.value.rowChanges.count == 1, total.value.rowChanges.first?.kind == .insert else {
                throw BenchError(.checkMismatch, "CofferView:V4 commit \(number) gave \(total.value)")
            }
            guard number > 0 else { continue }
            samples.total.append(total.seconds)
            samples.catchUp.append(catchUp.seconds)
            samples.counts.append(newCounts.seconds)
            samples.advance.append(changes.seconds)
        }
        try reader.endLongLivedReadTransaction()
        var result = CofferSuite.medianResult(changesID, samples.total, baselineID: nil)
        result.extra.insert((name: "view_rows", value: String(first)), at: 0)
        for (name, values) in [
            ("catch_up_s", samples.catchUp), ("counts_s", samples.counts), ("advance_s", samples.advance),
        ] {
            result.extra.append((name: name, value: String(format: "%.6f", Stopwatch.median(values))))
        }
        return result
    }
}
