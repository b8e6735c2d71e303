import Coffer
import Foundation

extension CofferSuite {
    /// The key derivation of the W11 envelope key file: the library's default, so the figure is what users get;
    /// the smoke run takes the cheapest scrypt the library accepts, since it only checks that W11 works.
    static func keyFileKDF(_ options: RunOptions) -> KeyFile.KDFParameters {
        options.smoke ? .scrypt(n: KeyFile.KDFParameters.minimumScryptCost, r: 8, p: 1) : .default
    }

    /// W5: opens the closed database and reads + decodes `user-000000`, five times; closing is not timed.
    /// - Throws: `DatabaseError` from Coffer; `BenchError` when the record read back is wrong.
    func measureOpens(_ url: URL, context: SuiteContext) throws -> WorkloadResult {
        let key = CofferStore.key(for: context.configuration.keyKind)
        var samples: [Double] = []
        for _ in 0..<Self.openRepetitions {
            samples.append(try Self.timedOpen(url, context, key: key))
        }
        return Self.medianResult("W5", samples, baselineID: "W5")
    }

    /// W11 for the configuration's key kind: each way of keying, then a second connection, medians of several.
    ///
    /// Under raw keys: the raw key, an envelope key file wrapping that same key, and the key file's unwrap alone;
    /// under passphrase keys: the SQLCipher passphrase. Each kind also times a second connection on the open
    /// database. Every figure is the median of `options.openRepetitions`.
    /// - Throws: `DatabaseError` or `KeyFileError` from Coffer; `BenchError` when a record read back is wrong.
    func measureKeyKinds(
        _ url: URL, context: SuiteContext
    ) throws -> (results: [WorkloadResult], notes: [(key: String, value: String)]) {
        let repetitions = context.options.openRepetitions
        func repeated(_ body: () throws -> Double) throws -> [Double] {
            try (0..<repetitions).map { _ in try body() }
        }
        switch context.configuration.keyKind {
        case .passphrase:
            let key = CofferStore.key(for: .passphrase)
            let opens = try repeated { try Self.timedOpen(url, context, key: key) }
            let second = try Self.secondConnections(url, context, key: key)
            return (
                [
                    Self.medianResult("W11-passphrase", opens, baselineID: "W5"),
                    Self.connectionResult("W11-conn2-passphrase", second),
                ],
                [
                    (
                        key: "w11_passphrase_kdf",
                        value: "sqlcipher-pbkdf2-sha1(\(context.configuration.effectiveKDFIterations))"
                    )
                ]
            )
        case .raw:
            let raw = CofferStore.key(for: .raw)
            let opens = try repeated { try Self.timedOpen(url, context, key: raw) }
            let keyFileURL = context.directory.appendingPathComponent("coffer.keyfile")
            let dataKey = try DataKey(bytes: BenchKeys.rawKey)
            try KeyFile(
                wrapping: dataKey, passphrase: BenchKeys.passphrase, parameters: Self.keyFileKDF(context.options)
            )
            .write(to: keyFileURL)
            let keyFile = DatabaseKey.keyFile(keyFileURL, passphrase: Data(BenchKeys.passphrase))
            // The unwraps (one KDF each) and the key-file opens alternate: scrypt's time drifts by a
            // millisecond or two between blocks of runs, as much as the raw open the limit allows for.
            var unwraps: [Double] = []
            let keyFileOpens = try repeated {
                let unwrap = try Stopwatch.measure {
                    try KeyFile.read(from: keyFileURL).unwrap(passphrase: BenchKeys.passphrase)
                }
                unwraps.append(unwrap.seconds)
                return try Self.timedOpen(url, context, key: keyFile)
            }
            let rawMedian = Stopwatch.median(opens)
            let kdfMedian = Stopwatch.median(unwraps)
            let limit = 2 * rawMedian + kdfMedian
            var keyFileResult = Self.medianResult("W11-keyfile", keyFileOpens, baselineID: "W5")
            keyFileResult.extra += [
                (name: "limit_s", value: String(format: "%.6f", limit)),
                (name: "within_limit", value: Stopwatch.median(keyFileOpens) <= limit ? "yes" : "no"),
            ]
            return (
                [
                    Self.medianResult("W11-raw", opens, baselineID: "W5"),
                    Self.medianResult("W11-kdf", unwraps, baselineID: nil),
                    keyFileResult,
                    Self.connectionResult("W11-conn2-raw", try Self.secondConnections(url, context, key: raw)),
                    Self.connectionResult("W11-conn2-keyfile", try Self.secondConnections(url, context, key: keyFile)),
                ],
                [
                    (
                        key: "w11_keyfile_kdf",
                        value: Self.keyFileKDF(context.options).description.replacingOccurrences(of: " ", with: "")
                            + "+aes-256-gcm-unwrap(wraps-the-raw-key)"
                    )
                ]
            )
        }
    }

    /// One open of the closed file: `Database`, codec registration, a connection, and reading + decoding
    /// `user-000000` are timed; closing (until the database is deallocated) is not.
    static func timedOpen(_ url: URL, _ context: SuiteContext, key: DatabaseKey) throws -> Double {
        let configuration = context.configuration
        let expected = context.records.firstRecordAge
        var seconds = 0.0
        func session() throws -> ReleaseWatcher {
            let opened = try Stopwatch.measure { () throws -> (database: Database, connection: Connection, age: Int?) in
                let database = try Database(
                    url: url, options: CofferStore.options(for: configuration, key: key, run: context.options))
                CofferStore.register(database, codable: true)
                let connection = try database.newConnection(config: CofferStore.uncached)
                return (database, connection, try CofferStore.firstAge(connection, codable: true))
            }
            guard opened.value.age == expected else {
                throw BenchError(.checkMismatch, "Coffer:W5 read age \(opened.value.age.map(String.init) ?? "nothing")")
            }
            seconds = opened.seconds
            return ReleaseWatcher(opened.value.database)
        }
        try session().waitForRelease()
        return seconds
    }

    /// The cost of a second connection on an open database: `newConnection()` plus its first read of
    /// `user-000000`, repeated; the first connection has already read, and each new one is released untimed.
    static func secondConnections(_ url: URL, _ context: SuiteContext, key: DatabaseKey) throws -> [Double] {
        let expected = context.records.firstRecordAge
        var samples: [Double] = []
        func session() throws -> ReleaseWatcher {
            let database = try Database(
                url: url, options: CofferStore.options(for: context.configuration, key: key, run: context.options))
            CofferStore.register(database, codable: true)
            let first = try database.newConnection(config: CofferStore.uncached)
            _ = try CofferStore.firstAge(first, codable: true)
            for _ in 0..<context.options.openRepetitions {
                let opened = try Stopwatch.measure { () throws -> (connection: Connection, age: Int?) in
                    let connection = try database.newConnection(config: CofferStore.uncached)
                    return (connection, try CofferStore.firstAge(connection, codable: true))
                }
                guard opened.value.age == expected else {
                    throw BenchError(.checkMismatch, "Coffer:W11 second connection read the wrong record")
                }
                samples.append(opened.seconds)
            }
            withExtendedLifetime(first) {}
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        return samples
    }

    /// A figure of one operation timed several times: the median, with the spread.
    static func medianResult(_ id: String, _ samples: [Double], baselineID: String?) -> WorkloadResult {
        WorkloadResult(
            id: id, ops: 1, seconds: Stopwatch.median(samples), baselineID: baselineID,
            extra: [
                (name: "min_s", value: String(format: "%.6f", samples.min() ?? 0)),
                (name: "max_s", value: String(format: "%.6f", samples.max() ?? 0)),
                (name: "n", value: String(samples.count)),
            ])
    }

    /// A second-connection figure, judged against the 1 ms target.
    private static func connectionResult(_ id: String, _ samples: [Double]) -> WorkloadResult {
        var result = medianResult(id, samples, baselineID: nil)
        result.extra.append((name: "within_1ms", value: result.seconds <= 0.001 ? "yes" : "no"))
        return result
    }
}
