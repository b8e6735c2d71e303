import Coffer
import Foundation

/// V1–V3: one view holding a group of `options.scaleCount` rows (1,000,000 unless `--scale-n` or
/// `--smoke` says otherwise) and a group of a hundredth of that, in one database.
///
/// The setup is untimed: every row (a 16-byte object and a ``ViewStamp``, row `i` of a group at
/// time `2i`) is written in one transaction, then the view is registered, which sorts them. V1 and
/// V2 are single-row commits of a new row at an odd time drawn with SplitMix64, so it lands between
/// two rows anywhere in its group: V1 into the large group, V2 into the small one, alternating,
/// each the median of `scaleRepetitions`. V3, in one read transaction of a new connection, takes
/// `scaleRepetitions` indexes drawn in the large group: `key(at:inGroup:)` once untimed (the first
/// access reads the row's page) and once timed, then `index(forKey:inCollection:)` of that key once
/// untimed and once timed. Each V3 figure is the median of the timed calls; the first, untimed
/// calls' median is printed as `first_s`.
extension CofferViewSuite {
    /// The workload ids.
    static let bigInsertID = "V1"
    static let smallInsertID = "V2"
    static let lookupID = "V3"
    /// The collection of the rows of V1–V3.
    static let eventCollection = "events"

    /// How many inserts each of V1 and V2, and how many lookups V3, times.
    static func scaleRepetitions(_ options: RunOptions) -> Int { options.smoke ? 21 : 201 }

    /// What V1–V3 do, for the report.
    static func scaleNote(_ options: RunOptions) -> String {
        let big = options.scaleCount
        return "groups-of-\(big)-and-\(max(1, big / 100))-rows-built-untimed,"
            + "V1/V2=single-row-commit-at-a-random-place-alternating,median-of-\(scaleRepetitions(options)),"
            + "V3=key(at:)/index(forKey:)-in-the-large-group,second-call-timed(page-cached),one-read-transaction"
    }

    /// Builds the two groups and measures V1, V2 and V3 as selected.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when a group or a lookup disagrees with the rows written.
    func runScale(selected: Set<String>, context: SuiteContext) throws -> [WorkloadResult] {
        let options = context.options
        let sizes = [options.scaleCount, max(1, options.scaleCount / 100)]
        let configuration = context.configuration.scaled(to: sizes[0] + sizes[1])
        let url = context.directory.appendingPathComponent("view-scale.sqlite")
        let repetitions = Self.scaleRepetitions(options)
        let payload = Data(repeating: 0x5A, count: 16)
        var generator = SplitMix64(seed: 42)
        var inserts: [[Double]] = [[], []]
        var lookups: (key: [Double], index: [Double], firstKey: [Double], firstIndex: [Double]) = ([], [], [], [])

        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, configuration, run: options)
            database.registerData(forCollection: Self.eventCollection)
            database.registerMetadataSerializer(ViewStamp.chain, forCollection: Self.eventCollection)
            let writer = try database.newConnection(config: CofferStore.uncached)
            try writer.readWrite { tx in
                for (group, size) in sizes.enumerated() {
                    for row in 0..<size {
                        try tx.setObject(
                            payload, forKey: Self.eventKey(group, row), inCollection: Self.eventCollection,
                            withMetadata: ViewStamp(group: group, time: Double(2 * row)))
                    }
                }
            }
            try database.register(
                AutoView(
                    grouping: .metadata(ViewStamp.self) { row, group in
                        group = ViewStamp.groupNames[row.metadata.group]
                    },
                    sorting: .metadata(ViewStamp.self) { _, left, right in
                        ViewStamp.compare(left.metadata.time, right.metadata.time)
                    },
                    allowedCollections: .only([Self.eventCollection])),
                withName: Self.viewName)
            let counts = try writer.read { tx in
                try tx.extension(Self.viewName, as: AutoViewTransaction.self).groupCounts()
            }
            guard counts == [ViewStamp.groupNames[0]: sizes[0], ViewStamp.groupNames[1]: sizes[1]] else {
                throw BenchError(.checkMismatch, "CofferView: the scale view's groups hold \(counts)")
            }
            if selected.contains(Self.bigInsertID) || selected.contains(Self.smallInsertID) {
                for number in 0...repetitions {
                    for (group, size) in sizes.enumerated() {
                        let time = Double(2 * Int(generator.next() % UInt64(size)) + 1)
                        let insert = try Stopwatch.measure {
                            try writer.readWrite { tx in
                                try tx.setObject(
                                    payload, forKey: "new-\(group)-\(number)", inCollection: Self.eventCollection,
                                    withMetadata: ViewStamp(group: group, time: time))
                            }
                        }
                        // The first commit of each group loads its page tree on the writer.
                        if number > 0 { inserts[group].append(insert.seconds) }
                    }
                }
            }
            if selected.contains(Self.lookupID) {
                let reader = try database.newConnection(config: CofferStore.uncached)
                try reader.read { tx in
                    let view = try tx.extension(Self.viewName, as: AutoViewTransaction.self)
                    let group = ViewStamp.groupNames[0]
                    let count = try view.numberOfItems(inGroup: group)
                    for _ in 0..<repetitions {
                        let index = Int(generator.next() % UInt64(count))
                        let first = try Stopwatch.measure { try view.key(at: index, inGroup: group) }
                        let key = try Stopwatch.measure { try view.key(at: index, inGroup: group) }
                        guard let found = key.value, found == first.value else {
                            throw BenchError(.checkMismatch, "CofferView:V3 found no key at \(index)")
                        }
                        let firstIndex = try Stopwatch.measure {
                            try view.index(forKey: found.key, inCollection: found.collection)
                        }
                        let position = try Stopwatch.measure {
                            try view.index(forKey: found.key, inCollection: found.collection)
                        }
                        guard position.value?.index == index, firstIndex.value?.index == index else {
                            throw BenchError(
                                .checkMismatch,
                                "CofferView:V3 \(found.key) is at \(position.value?.index ?? -1), not \(index)")
                        }
                        lookups.firstKey.append(first.seconds)
                        lookups.key.append(key.seconds)
                        lookups.firstIndex.append(firstIndex.seconds)
                        lookups.index.append(position.seconds)
                    }
                }
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()

        var results: [WorkloadResult] = []
        let cache = (name: "cache_kib", value: String(configuration.effectiveCacheKiB))
        for (group, id) in [Self.bigInsertID, Self.smallInsertID].enumerated() where selected.contains(id) {
            var result = CofferSuite.medianResult(id, inserts[group], baselineID: nil)
            result.extra.insert(contentsOf: [(name: "group_rows", value: String(sizes[group])), cache], at: 0)
            results.append(result)
        }
        if selected.contains(Self.lookupID) {
            for (suffix, samples, first) in [
                ("key", lookups.key, lookups.firstKey), ("index", lookups.index, lookups.firstIndex),
            ] {
                var result = CofferSuite.medianResult("\(Self.lookupID)-\(suffix)", samples, baselineID: nil)
                result.extra.insert(contentsOf: [(name: "group_rows", value: String(sizes[0])), cache], at: 0)
                result.extra.append((name: "first_s", value: String(format: "%.6f", Stopwatch.median(first))))
                results.append(result)
            }
        }
        return results
    }

    /// The key of row `row` of group `group` in the scale view.
    private static func eventKey(_ group: Int, _ row: Int) -> String { "e\(group)-\(row)" }
}
