import Coffer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The cost and latency of ``DatabaseOptions/multiProcessSupport`` (issue 27's figures).
///
/// R1p0 / R1p: 100,000 read transactions (N × 1, at least 100,000), each reading one cached row,
/// with the option off and on: the per-transaction check is what differs. W2p0 / W2p: W2's small
/// write transactions on W1's database, off and on, with no other process on the file (a commit
/// then asks the lock whether one is there, and writes no number); W2ps: on, while another
/// process (this executable in its hidden `--child-mp-holder` mode) holds the file open, so each
/// commit also writes its snapshot number.
/// L1 / L1l: another process (this executable in its hidden `--child-mp-writer` mode) commits
/// one row every 20 ms; the time from just before its commit to this process's external-change
/// notification, median over the commits, with this process idle (L1) and busy with its own
/// read and write transactions on two threads (L1l).
struct CofferProcessSuite: BenchmarkSuite {
    let implementation = "CofferProcess"
    let workloads = [
        WorkloadInfo("R1p0"), WorkloadInfo("R1p"), WorkloadInfo("W2p0", baseline: "W2"),
        WorkloadInfo("W2p", baseline: "W2"), WorkloadInfo("W2ps", baseline: "W2"), WorkloadInfo("L1"),
        WorkloadInfo("L1l"),
    ]
    /// The collection the latency child writes its commit times to.
    static let latencyCollection = "latency"
    /// Commits the latency child makes per measurement (5 with `--smoke`).
    static func latencyCommits(_ configuration: BenchConfiguration) -> Int {
        configuration.kdfIterations == BenchConfiguration.smokeKDFIterations ? 5 : 50
    }

    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        var perTransaction: [Bool: Double] = [:]
        for multiProcess in [false, true] {
            let id = multiProcess ? "R1p" : "R1p0"
            let writeID = multiProcess ? "W2p" : "W2p0"
            let shared = multiProcess && selected.contains("W2ps")
            guard selected.contains(id) || selected.contains(writeID) || shared else { continue }
            let (reads, writes, sharedWrites) = try readsAndWrites(
                multiProcess: multiProcess, shared: shared, context: context)
            perTransaction[multiProcess] = reads.seconds / Double(reads.ops)
            if selected.contains(id) { report.results.append(reads) }
            if selected.contains(writeID) { report.results.append(writes) }
            if let sharedWrites { report.results.append(sharedWrites) }
        }
        if let off = perTransaction[false], let on = perTransaction[true],
            let index = report.results.firstIndex(where: { $0.id == "R1p" })
        {
            report.results[index].extra.append(
                (name: "extra_us_per_tx", value: String(format: "%.3f", (on - off) * 1e6)))
        }
        for (id, loaded) in [("L1", false), ("L1l", true)] where selected.contains(id) {
            report.results.append(try latency(id: id, loaded: loaded, context: context))
        }
        return report
    }

    /// Options with the benchmark's settings and the option as given.
    static func options(_ configuration: BenchConfiguration, multiProcess: Bool) -> DatabaseOptions {
        var options = CofferStore.options(for: configuration, key: CofferStore.key(for: configuration.keyKind))
        options.multiProcessSupport = multiProcess
        return options
    }

    /// R1p0/R1p and W2p0/W2p (and W2ps when `shared`) on a database of their own.
    private func readsAndWrites(
        multiProcess: Bool, shared: Bool, context: SuiteContext
    ) throws -> (WorkloadResult, WorkloadResult, WorkloadResult?) {
        let url = context.directory.appendingPathComponent("process-\(multiProcess).sqlite")
        var results: (WorkloadResult, WorkloadResult, WorkloadResult?)?
        func session() throws -> ReleaseWatcher {
            let database = try Database(
                url: url, options: Self.options(context.configuration, multiProcess: multiProcess))
            CofferStore.register(database, codable: true)
            let connection = try database.newConnection(config: CofferStore.uncached)
            let users = context.records.users
            try connection.readWrite { tx in
                for user in users { try tx.setObject(user, forKey: user.id, inCollection: Records.collection) }
            }
            let updates = context.records.updates
            func writeUpdates() throws -> Double {
                try Stopwatch.measure {
                    for user in updates {
                        try connection.readWrite { tx in
                            try tx.setObject(user, forKey: user.id, inCollection: Records.collection)
                        }
                    }
                }.seconds
            }
            let writes = try writeUpdates()
            var sharedWrites: WorkloadResult?
            if shared {
                let holder = try Holder(path: url.path, context: context)
                let seconds = try writeUpdates()
                try holder.release()
                sharedWrites = WorkloadResult(id: "W2ps", ops: updates.count, seconds: seconds, baselineID: "W2")
            }
            let reader = try database.newConnection()
            let key = users[0].id
            let count = context.options.smoke ? 2_000 : max(100_000, users.count)
            _ = try reader.read { tx in try tx.object(forKey: key, inCollection: Records.collection) }
            let reads = try Stopwatch.measure {
                var found = 0
                for _ in 0..<count {
                    found += try reader.read { tx in
                        try tx.object(forKey: key, inCollection: Records.collection) == nil ? 0 : 1
                    }
                }
                return found
            }
            guard reads.value == count else {
                throw BenchError(.checkMismatch, "CofferProcess: read \(reads.value) of \(count) rows")
            }
            results = (
                WorkloadResult(id: multiProcess ? "R1p" : "R1p0", ops: count, seconds: reads.seconds),
                WorkloadResult(
                    id: multiProcess ? "W2p" : "W2p0", ops: updates.count, seconds: writes, baselineID: "W2"),
                sharedWrites
            )
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        guard let results else { throw BenchError(.checkMismatch, "CofferProcess: no figures") }
        return results
    }

    /// L1 / L1l: the median latency of another process's commits, in seconds.
    private func latency(id: String, loaded: Bool, context: SuiteContext) throws -> WorkloadResult {
        let url = context.directory.appendingPathComponent("latency-\(id).sqlite")
        var samples: [Double] = []
        func session() throws -> ReleaseWatcher {
            let database = try Database(url: url, options: Self.options(context.configuration, multiProcess: true))
            database.registerCodable(Int.self, forCollection: Self.latencyCollection)
            let reader = try database.newConnection(config: CofferStore.uncached)
            let arrived = Locked<[Int]>([])
            let observer = NotificationCenter.default.addObserver(
                forName: Database.modifiedNotification, object: database, queue: nil
            ) { note in
                let now = Self.monotonicNanoseconds()
                guard let changeset = note.userInfo?[Database.changesetKey] as? Changeset, changeset.isExternal else {
                    return
                }
                arrived.withLock { $0.append(now) }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            let stop = Locked(false)
            var load: [Thread] = []
            if loaded {
                for writer in [false, true] {
                    let thread = Thread {
                        guard let connection = try? database.newConnection() else { return }
                        var index = 0
                        while !stop.withLock({ $0 }) {
                            index += 1
                            if writer {
                                try? connection.readWrite { tx in
                                    try tx.setObject(index, forKey: "busy", inCollection: Self.latencyCollection)
                                }
                            } else {
                                _ = try? connection.read { tx in
                                    try tx.object(forKey: "busy", inCollection: Self.latencyCollection, as: Int.self)
                                }
                            }
                        }
                    }
                    thread.start()
                    load.append(thread)
                }
            }
            let child = try Self.spawnWriter(path: url.path, context: context)
            let status = child.waitUntilExit()
            stop.withLock { $0 = true }
            guard status == 0 else {
                throw BenchError(.io, "the \(id) writer child failed with status \(status)")
            }
            // Each commit's time, from the rows the child wrote; matched with the first notification after it.
            let commits = try reader.read { tx in
                try (0..<Self.latencyCommits(context.configuration)).compactMap {
                    try tx.object(forKey: "c\($0)", inCollection: Self.latencyCollection, as: Int.self)
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
            let notes = arrived.withLock { $0 }.sorted()
            for commit in commits {
                guard let heard = notes.first(where: { $0 >= commit }) else { continue }
                samples.append(Double(heard - commit) / 1e9)
            }
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        guard !samples.isEmpty else { throw BenchError(.checkMismatch, "CofferProcess: \(id) heard no commit") }
        samples.sort()
        let median = samples[samples.count / 2]
        return WorkloadResult(
            id: id, ops: samples.count, seconds: median * Double(samples.count),
            extra: [
                (name: "median_ms", value: String(format: "%.3f", median * 1e3)),
                (name: "p90_ms", value: String(format: "%.3f", samples[samples.count * 9 / 10] * 1e3)),
                (name: "max_ms", value: String(format: "%.3f", (samples.last ?? 0) * 1e3)),
                (name: "commits_heard", value: "\(samples.count)/\(Self.latencyCommits(context.configuration))"),
            ])
    }

    /// CLOCK_MONOTONIC in nanoseconds: one clock for both processes.
    static func monotonicNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    private static func spawnWriter(path: String, context: SuiteContext) throws -> SpawnedChild {
        try spawnChild(mode: "--child-mp-writer", path: path, context: context)
    }

    /// This executable in one of its hidden child modes, on the file at `path`.
    static func spawnChild(mode: String, path: String, context: SuiteContext) throws -> SpawnedChild {
        // The child derives the same key: the smoke run's cheaper KDF goes with `--smoke`.
        let smoke = context.configuration.kdfIterations == BenchConfiguration.smokeKDFIterations
        return try SpawnedChild(
            executable: try ChildExecutable.url(),
            arguments: [
                mode, path, "--settings", context.configuration.preset.rawValue, "--keys",
                context.configuration.keyKind.rawValue, "--n", String(context.configuration.recordCount),
            ] + (smoke ? ["--smoke"] : []))
    }

    /// In the child: commits ``latencyCommits(_:)`` rows 20 ms apart, each holding the monotonic
    /// time just before its commit.
    static func runWriterInChild(path: String, configuration: BenchConfiguration) throws {
        let database = try Database(
            url: URL(fileURLWithPath: path), options: options(configuration, multiProcess: true))
        database.registerCodable(Int.self, forCollection: latencyCollection)
        let connection = try database.newConnection()
        for index in 0..<latencyCommits(configuration) {
            Thread.sleep(forTimeInterval: 0.02)
            try connection.readWrite { tx in
                try tx.setObject(monotonicNanoseconds(), forKey: "c\(index)", inCollection: latencyCollection)
            }
        }
        try database.close()
    }
}
