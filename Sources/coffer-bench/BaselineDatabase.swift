import CBaseline

/// One open connection of the C baseline; owns the `cb_db` handle and closes it on deinit.
///
/// Each method is one call into C, so timing a method times the C code alone.
final class BaselineDatabase {
    private let handle: OpaquePointer

    /// Opens (creating if needed) and keys the database at `path`, applies `configuration` and the C-only
    /// checkpoint and vacuum choices of `options`, and validates the key.
    /// - Throws: `BenchError` with code `.baseline` when opening, keying or a pragma fails (a wrong key included).
    /// - Complexity: one key derivation for passphrase keys (about 25 ms at 64,000 iterations).
    init(path: String, key: [UInt8], configuration: BenchConfiguration, options: RunOptions = RunOptions()) throws {
        var settings = cb_settings(
            page_size: Int32(configuration.pageSize ?? 0),
            cache_kib: Int32(configuration.cacheKiB ?? 0),
            kdf_iter: Int32(configuration.kdfIterations ?? 0),
            use_hmac: configuration.useHMAC.map { $0 ? 1 : 0 } ?? -1,
            wal_autocheckpoint: options.cWALAutocheckpointPages,
            auto_vacuum: options.cAutoVacuumValue)
        var opened: OpaquePointer?
        let rc = key.withUnsafeBytes { keyBytes in
            cb_open(path, keyBytes.baseAddress, Int32(keyBytes.count), &settings, &opened)
        }
        guard let opened else { throw BenchError(.baseline, "opening the baseline database: out of memory") }
        guard rc == 0 else {
            let message = String(cString: cb_errmsg(opened))
            cb_close(opened)
            throw BenchError(.baseline, "opening the baseline database: \(message)")
        }
        handle = opened
    }

    deinit {
        cb_close(handle)
    }

    /// The SQLite library version string (from the C baseline).
    static var sqliteVersion: String { String(cString: cb_sqlite_version()) }

    /// The SQLite source id (from the C baseline).
    static var sqliteSourceID: String { String(cString: cb_sqlite_source_id()) }

    /// Creates the `kv` table and its unique `(collection, key)` index.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails.
    func createSchema() throws {
        try check(cb_create_schema(handle), "creating the schema")
    }

    /// W1: inserts every key/value pair in one transaction.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails; the transaction is rolled back.
    /// - Complexity: O(n) inserts, one commit.
    func insertAll(keys: PackedStrings, values: PackedStrings, collection: String) throws {
        let rc = keys.withUnsafeCPacked { keys in
            values.withUnsafeCPacked { values in cb_w1_insert(handle, collection, keys, values) }
        }
        try check(rc, "W1 insert")
    }

    /// W2: upserts each key/value pair in its own transaction.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails.
    /// - Complexity: O(n) transactions, each with its own commit.
    func upsertEach(keys: PackedStrings, values: PackedStrings, collection: String) throws {
        let rc = keys.withUnsafeCPacked { keys in
            values.withUnsafeCPacked { values in cb_w2_upsert(handle, collection, keys, values) }
        }
        try check(rc, "W2 upsert")
    }

    /// W3: reads every key in one read transaction; returns how many were found and the sum of their ages.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails or a value has no age.
    /// - Complexity: O(n log N) index lookups.
    func readEach(keys: PackedStrings, collection: String) throws -> (found: Int, ageSum: Int) {
        var found: Int64 = 0
        var ageSum: Int64 = 0
        let rc = keys.withUnsafeCPacked { keys in cb_w3_point_reads(handle, collection, keys, &found, &ageSum) }
        try check(rc, "W3 point reads")
        return (Int(found), Int(ageSum))
    }

    /// W4: reads every record of `collection` in key order; returns the count and the sum of ages.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails or a value has no age.
    /// - Complexity: O(N).
    func enumerate(collection: String) throws -> (count: Int, ageSum: Int) {
        var count: Int64 = 0
        var ageSum: Int64 = 0
        try check(cb_w4_enumerate(handle, collection, &count, &ageSum), "W4 enumerate")
        return (Int(count), Int(ageSum))
    }

    /// Reads one record and returns its age, or nil when the key has no row.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails or the value has no age.
    func age(forKey key: String, collection: String) throws -> Int? {
        var found: Int32 = 0
        var age: Int64 = 0
        let utf8 = Array(key.utf8)
        let rc = utf8.withUnsafeBufferPointer { keyBytes in
            keyBytes.withMemoryRebound(to: CChar.self) { key in
                cb_read_one(handle, collection, key.baseAddress, Int32(key.count), &found, &age)
            }
        }
        try check(rc, "reading one record")
        return found != 0 ? Int(age) : nil
    }

    /// FNV-1a 64 over the stored values of `collection` in key order, and how many values it covered.
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails.
    /// - Complexity: O(total stored bytes).
    func contentHash(collection: String) throws -> (hash: UInt64, count: Int) {
        var hash: UInt64 = 0
        var count: Int64 = 0
        try check(cb_content_fnv1a64(handle, collection, &hash, &count), "content hash")
        return (hash, Int(count))
    }

    /// The first value `PRAGMA <name>` returns, as text ("" when it returns no row).
    /// - Throws: `BenchError` with code `.baseline` when SQLite fails.
    func pragma(_ name: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let rc = buffer.withUnsafeMutableBufferPointer { cb_pragma_text(handle, name, $0.baseAddress, Int32($0.count)) }
        try check(rc, "PRAGMA \(name)")
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func check(_ rc: Int32, _ what: String) throws {
        guard rc != 0 else { return }
        throw BenchError(.baseline, "\(what) failed: \(String(cString: cb_errmsg(handle)))")
    }
}
