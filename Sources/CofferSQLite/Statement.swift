internal import CSQLCipher
package import Foundation

/// A prepared SQL statement: bind parameters, step through rows, read columns.
///
/// Parameter and column indexes follow SQLite: parameters start at 1, columns at 0.
/// The statement is finalized when released. Not thread-safe.
package final class Statement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    /// The SQL text, kept for error messages.
    package let sql: String
    /// Whether the statement is in use: true after a `step()` that returned a row and before
    /// the next `reset()` or the last row.
    ///
    /// A nested caller must not take a statement in use. SQLite tracks this itself, which keeps
    /// a stored flag (and its exclusivity check) off the per-row path.
    package var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }
    /// Whether running the statement cannot change the database (`sqlite3_stmt_readonly`).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The text ``bindKept(_:at:)`` bound last; any other binding of its parameter forgets it.
    ///
    /// Unchecked: a statement is used by one thread at a time (its connection's), never
    /// reentrantly while binding, and the dynamic check would tax every read of a row.
    @exclusivity(unchecked) private var keptText = ""
    /// The parameter `keptText` is bound to; 0 for none.
    ///
    /// Parameters start at 1. Kept apart from the text, so that checking it on every binding
    /// copies no string.
    @exclusivity(unchecked) private var keptIndex: Int32 = 0
    /// Parameters 1…64 known to hold NULL (bit `index - 1`): binding NULL there again is skipped.
    ///
    /// A row write binds a nil metadata on every row; each `sqlite3_bind_null` takes SQLite's
    /// mutexes. Set only by this statement's own NULL bindings, cleared by any other binding of
    /// the parameter (all go through `noteBinding`).
    @exclusivity(unchecked) private var nullParameters: UInt64 = 0
    /// Parameters 1…64 still bound in place to lent memory that may be gone (bit `index - 1`).
    ///
    /// SQLite reads a parameter only when the statement steps, so `step()` binds NULL to these
    /// first; a row path that lends the same parameters on every step rebinds them before that
    /// and never pays for the NULL. Parameters past the 64th are unbound at once instead.
    @exclusivity(unchecked) private var danglingParameters: UInt64 = 0

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds a 64-bit integer to parameter `index`.
    package func bind(_ value: Int64, at index: Int32) throws {
        noteBinding(at: index)
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a double to parameter `index`.
    package func bind(_ value: Double, at index: Int32) throws {
        noteBinding(at: index)
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds UTF-8 text to parameter `index` and keeps it bound for later steps: binding the same
    /// text there again does nothing.
    ///
    /// For a parameter most runs of the statement share, such as the collection of a row
    /// statement: SQLite copies the text once, instead of it being bound in place and unbound
    /// around every step. Same text means the same string bits (a small string's bytes, or the
    /// same storage); equal text with other bits is bound again, which is correct, only slower.
    @inline(__always)
    package func bindKept(_ value: String, at index: Int32) throws {
        if keptIndex == index, Self.sameBits(keptText, value) { return }
        try bind(value, at: index)
        keptText = value
        keptIndex = index
    }

    /// Whether two strings have the same bits, so the same contents.
    @inline(__always)
    private static func sameBits(_ lhs: String, _ rhs: String) -> Bool {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return false }
        return unsafeBitCast(lhs, to: (UInt64, UInt64).self) == unsafeBitCast(rhs, to: (UInt64, UInt64).self)
    }

    /// Forgets what is known of parameter `index` (its kept text, its NULL) when it is about to
    /// be bound to something else.
    @inline(__always)
    private func noteBinding(at index: Int32) {
        if keptIndex == index { keptIndex = 0 }
        let others = ~Self.bit(index)
        nullParameters &= others
        danglingParameters &= others
    }

    /// Parameter `index`'s bit in `nullParameters` and `danglingParameters`; 0 past the 64th.
    @inline(__always)
    private static func bit(_ index: Int32) -> UInt64 {
        index >= 1 && index <= 64 ? 1 << UInt64(index - 1) : 0
    }

    /// Throws the connection's error for a binding's result code other than `SQLITE_OK`.
    ///
    /// Reaches the connection only on failure: the unowned reference costs a strong retain per
    /// use, and binding is on every row's path.
    @inline(__always)
    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw connection.makeError(rc, sql: sql) }
    }

    /// Binds UTF-8 text to parameter `index` (SQLite copies it).
    package func bind(_ value: String, at index: Int32) throws {
        try value.withCString { try bindText($0, count: value.utf8.count, at: index, csqlcipher_transient()) }
    }

    /// Binds a blob to parameter `index` (SQLite copies it); nil binds NULL.
    package func bind(_ value: Data?, at index: Int32) throws {
        guard let value else {
            try bindNull(at: index)
            return
        }
        try value.withUnsafeBytes { try bindBlob($0, at: index, csqlcipher_transient()) }
    }

    /// Binds `count` bytes of UTF-8 text; a nil `destructor` (SQLITE_STATIC) binds them in place.
    ///
    /// The byte count is explicit: with -1 SQLite stops at an embedded NUL, so "a\0b" would bind as "a".
    private func bindText(
        _ text: UnsafePointer<CChar>, count: Int, at index: Int32, _ destructor: sqlite3_destructor_type?
    ) throws {
        noteBinding(at: index)
        try check(sqlite3_bind_text(handle, index, text, Int32(clamping: count), destructor))
    }

    /// Binds a blob; a nil `destructor` (SQLITE_STATIC) binds the bytes in place.
    ///
    /// A zero-length blob still binds as a blob, not NULL: SQLite needs a valid pointer for that.
    private func bindBlob(
        _ bytes: UnsafeRawBufferPointer, at index: Int32, _ destructor: sqlite3_destructor_type?
    ) throws {
        noteBinding(at: index)
        let rc = sqlite3_bind_blob(
            handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(clamping: bytes.count),
            destructor)
        try check(rc)
    }

    /// Binds NULL to parameter `index` (nothing to do when it holds NULL from this statement's
    /// last binding of it).
    package func bindNull(at index: Int32) throws {
        // A parameter known to hold NULL holds no kept text and is not dangling either.
        let bit = Self.bit(index)
        guard nullParameters & bit == 0 else { return }
        noteBinding(at: index)
        try check(sqlite3_bind_null(handle, index))
        nullParameters |= bit
    }

    /// Runs `body` with `value` bound to parameter `index` in place, without SQLite's copy; the
    /// statement never steps again with a pointer to memory that is gone (see `letGo(at:)`).
    ///
    /// For the per-row paths: SQLite's copy of each parameter is an allocation, a copy and a free
    /// per value, a noticeable share of a bulk insert.
    package func withLent(_ value: String, at index: Int32, _ body: () throws -> Void) throws {
        try value.withCString { pointer in
            try bindText(pointer, count: value.utf8.count, at: index, nil)
            defer { letGo(at: index) }
            try body()
        }
    }

    /// Runs `body` with `value` bound to parameter `index` in place (NULL when nil), like the
    /// `String` variant.
    package func withLent(_ value: Data?, at index: Int32, _ body: () throws -> Void) throws {
        guard let value else {
            try bindNull(at: index)
            try body()
            return
        }
        try value.withUnsafeBytes { raw in
            try bindBlob(raw, at: index, nil)
            defer { letGo(at: index) }
            try body()
        }
    }

    /// Runs the statement (as ``run()``) with `text` and `blob` bound in place to parameters
    /// `textIndex` and `blobIndex`: the two lendings of a row write in one call, without the
    /// closures and busy checks of two nested ``withLent(_:at:_:)``.
    /// - Returns: the number of rows the statement changed (`sqlite3_changes`), which the caller
    ///   would otherwise ask its connection for.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    package func run(lending text: String, at textIndex: Int32, _ blob: Data, at blobIndex: Int32) throws -> Int {
        try text.withCString { pointer in
            try bindText(pointer, count: text.utf8.count, at: textIndex, nil)
            // `run()` resets the statement: nothing steps with the lent memory afterwards.
            defer { markDangling(at: textIndex) }
            func runLendingBlob(_ raw: UnsafeRawBufferPointer) throws -> Int {
                try bindBlob(raw, at: blobIndex, nil)
                defer { markDangling(at: blobIndex) }
                try run()
                return Int(sqlite3_changes(sqlite3_db_handle(handle)))
            }
            // Through the span where Foundation has one: `Data.withUnsafeBytes`, inlined here,
            // checks exclusive access to its storage's fields at run time, three checks a row.
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                return try blob.bytes.withUnsafeBytes(runLendingBlob)
            } else {
                return try blob.withUnsafeBytes(runLendingBlob)
            }
        }
    }

    /// Steps a one-row query with `kept` bound to parameter `keptIndex` (as ``bindKept(_:at:)``)
    /// and `text` bound in place to parameter `textIndex`, copies column `column` of its row into
    /// `data` (as ``copyBytes(_:into:)``) and resets: a point read's bindings and copy in one call,
    /// without the closure and busy check of ``withLent(_:at:_:)``.
    /// - Returns: nil when there is no row, otherwise whether the column is not NULL.
    /// - Throws: ``SQLiteError``.
    package func copyColumn(
        _ column: Int32, into data: inout Data, keeping kept: String, at keptIndex: Int32,
        lending text: String, at textIndex: Int32
    ) throws -> Bool? {
        try bindKept(kept, at: keptIndex)
        return try text.withCString { pointer in
            try bindText(pointer, count: text.utf8.count, at: textIndex, nil)
            // Reset before the lent memory goes: nothing steps with it afterwards.
            defer {
                reset()
                markDangling(at: textIndex)
            }
            guard try step() else { return nil }
            return copyBytes(column, into: &data)
        }
    }

    /// Ends a lending of parameter `index`: resets the statement if `body` left it stepping (a
    /// stepping statement reads its parameters again), then marks the parameter dangling, to be
    /// bound to NULL before the next step unless it is bound again first.
    private func letGo(at index: Int32) {
        if sqlite3_stmt_busy(handle) != 0 { sqlite3_reset(handle) }
        markDangling(at: index)
    }

    /// The rest of ``letGo(at:)``, for a statement known not to be stepping.
    @inline(__always)
    private func markDangling(at index: Int32) {
        noteBinding(at: index)
        let bit = Self.bit(index)
        if bit == 0 {
            _ = sqlite3_bind_null(handle, index)
        } else {
            danglingParameters |= bit
        }
    }

    /// Binds NULL to every dangling parameter.
    private func unbindDangling() {
        var dangling = danglingParameters
        while dangling != 0 {
            let offset = dangling.trailingZeroBitCount
            dangling &= dangling - 1
            if sqlite3_bind_null(handle, Int32(offset + 1)) == SQLITE_OK { nullParameters |= 1 << UInt64(offset) }
        }
        danglingParameters = 0
    }

    /// Binds any supported Swift value (Int/Int64/Double/Bool/String/Data/Date/nil).
    package func bind(value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }

    /// The number of `?` parameters in the statement.
    package var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    /// - Throws: ``SQLiteError`` (the statement is reset first, so it can be reused).
    @discardableResult
    package func step() throws -> Bool {
        if danglingParameters != 0 { unbindDangling() }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            let error = connection.makeError(rc, sql: sql)
            reset()
            throw error
        }
    }

    /// Steps a statement that returns no rows, then resets it.
    /// - Throws: ``SQLiteError``.
    package func run() throws {
        defer { reset() }
        try step()
    }

    /// Rewinds the statement so it can run again.
    ///
    /// Bindings stay until rebound: every caller binds all parameters before stepping.
    package func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Columns

    /// The number of columns in a result row.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Whether column `index` of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as a 64-bit integer.
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a double.
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as text ("" for NULL).
    package func text(_ index: Int32) -> String {
        guard let cString = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        // Repairs invalid UTF-8 as `String(decoding:as:)` does, with less overhead per string
        // (every enumerated key comes through here).
        return String(unsafeUninitializedCapacity: count) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            base.initialize(from: cString, count: count)
            return count
        }
    }

    /// Column `index` as bytes (nil for NULL; an empty blob is empty `Data`).
    package func data(_ index: Int32) -> Data? {
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Replaces `data`'s contents with column `index`'s bytes (NULL and an empty blob give empty
    /// `Data`); false when the column is NULL.
    ///
    /// Writes into `data`'s own storage when nothing else shares it, so a loop handing out one
    /// row's bytes at a time allocates only when a row outgrows the storage or the previous row's
    /// bytes were kept by someone.
    @discardableResult
    package func copyBytes(_ index: Int32, into data: inout Data) -> Bool {
        let bytes = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes else {
            data = Data()
            return sqlite3_column_type(handle, index) != SQLITE_NULL
        }
        // Foundation's setter is a call even when the count stays: rows of one size are common.
        if data.count != count { data.count = count }
        data.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: count)) }
        return true
    }

    /// Calls `body` with column `index`'s bytes without copying them (valid only inside `body`).
    package func withUnsafeBytes<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let count = Int(sqlite3_column_bytes(handle, index))
        let bytes = sqlite3_column_blob(handle, index)
        return try body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
    }

    /// Column `index` as a dynamically typed value.
    package func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(text(index))
        case SQLITE_BLOB: return .blob(data(index) ?? Data())
        default: return .null
        }
    }

    /// The name of result column `index`.
    package func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }
}

/// A value as SQLite stores it.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
