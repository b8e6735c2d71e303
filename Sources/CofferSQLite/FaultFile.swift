internal import CSQLCipher

/// The layout and methods of a file opened through ``FaultInjectingVFS``.
///
/// SQLite allocates `szOsFile` bytes per open file; ours are laid out as
///
///     offset  0  sqlite3_file (pMethods → the table below)
///     offset  8  the governing FaultController's id (0: none)
///     offset 16  the file kind (index into IOFault.FileKind.allCases)
///     offset 24  the real unix file, which the unix methods own
///
/// Every method forwards to the real file; reads, writes, syncs and truncations first ask the
/// registry whether to fail instead.
enum FaultFile {
    /// Bytes in front of the real file (a multiple of 8, so the real file stays aligned).
    static let headerSize = 24
    private static let scopeOffset = 8
    private static let kindOffset = 16

    /// The real file stored inside `file`.
    static func inner(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + headerSize).assumingMemoryBound(to: sqlite3_file.self)
    }

    static func setIdentity(_ file: UnsafeMutablePointer<sqlite3_file>, scope: UInt64, kind: IOFault.FileKind) {
        let raw = UnsafeMutableRawPointer(file)
        raw.storeBytes(of: scope, toByteOffset: scopeOffset, as: UInt64.self)
        let index = IOFault.FileKind.allCases.firstIndex(of: kind) ?? 0
        raw.storeBytes(of: Int64(index), toByteOffset: kindOffset, as: Int64.self)
    }

    /// The kind of file SQLite asked for, from its open flags.
    static func kind(openFlags flags: Int32) -> IOFault.FileKind {
        if flags & SQLITE_OPEN_MAIN_DB != 0 { return .mainDatabase }
        if flags & SQLITE_OPEN_WAL != 0 { return .wal }
        if flags & SQLITE_OPEN_MAIN_JOURNAL != 0 { return .journal }
        return .other
    }

    /// The result code to fail this call with, or nil to let it through.
    private static func intercept(_ file: UnsafeMutablePointer<sqlite3_file>, _ operation: IOFault.Operation) -> Int32?
    {
        let raw = UnsafeMutableRawPointer(file)
        let scope = raw.load(fromByteOffset: scopeOffset, as: UInt64.self)
        guard scope != 0 else { return nil }
        let index = Int(raw.load(fromByteOffset: kindOffset, as: Int64.self))
        let kinds = IOFault.FileKind.allCases
        let kind = kinds.indices.contains(index) ? kinds[index] : .other
        return faultRegistry.withLock { $0.intercept(scope: scope, operation: operation, kind: kind) }
    }

    /// The real file and its method table, or nil when the real open left none.
    private static func real(
        _ file: UnsafeMutablePointer<sqlite3_file>?
    ) -> (file: UnsafeMutablePointer<sqlite3_file>, methods: sqlite3_io_methods)? {
        guard let file else { return nil }
        let inner = inner(file)
        guard let methods = inner.pointee.pMethods else { return nil }
        return (inner, methods.pointee)
    }

    /// The method table every fault file points to (version 2: no memory mapping).
    static func methodTable() -> sqlite3_io_methods {
        var table = sqlite3_io_methods()
        table.iVersion = 2
        table.xClose = { file in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xClose else { return SQLITE_OK }
            return call(inner)
        }
        table.xRead = { file, buffer, amount, offset in
            guard let file, let (inner, methods) = FaultFile.real(file), let call = methods.xRead else {
                return SQLiteError.IOErrorCode.read
            }
            if let code = FaultFile.intercept(file, .read) { return code }
            return call(inner, buffer, amount, offset)
        }
        table.xWrite = { file, buffer, amount, offset in
            guard let file, let (inner, methods) = FaultFile.real(file), let call = methods.xWrite else {
                return SQLiteError.IOErrorCode.write
            }
            if let code = FaultFile.intercept(file, .write) { return code }
            return call(inner, buffer, amount, offset)
        }
        table.xTruncate = { file, size in
            guard let file, let (inner, methods) = FaultFile.real(file), let call = methods.xTruncate else {
                return SQLiteError.IOErrorCode.truncate
            }
            if let code = FaultFile.intercept(file, .truncate) { return code }
            return call(inner, size)
        }
        table.xSync = { file, flags in
            guard let file, let (inner, methods) = FaultFile.real(file), let call = methods.xSync else {
                return SQLiteError.IOErrorCode.fsync
            }
            if let code = FaultFile.intercept(file, .sync) { return code }
            return call(inner, flags)
        }
        table.xFileSize = { file, size in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xFileSize else {
                return SQLiteError.IOErrorCode.fstat
            }
            return call(inner, size)
        }
        table.xLock = { file, level in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xLock else {
                return SQLiteError.IOErrorCode.lock
            }
            return call(inner, level)
        }
        table.xUnlock = { file, level in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xUnlock else {
                return SQLiteError.IOErrorCode.unlock
            }
            return call(inner, level)
        }
        table.xCheckReservedLock = { file, result in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xCheckReservedLock else {
                return SQLiteError.IOErrorCode.checkReservedLock
            }
            return call(inner, result)
        }
        table.xFileControl = { file, operation, argument in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xFileControl else {
                return SQLITE_NOTFOUND
            }
            return call(inner, operation, argument)
        }
        table.xSectorSize = { file in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xSectorSize else { return 4096 }
            return call(inner)
        }
        table.xDeviceCharacteristics = { file in
            guard let (inner, methods) = FaultFile.real(file), let call = methods.xDeviceCharacteristics else {
                return 0
            }
            return call(inner)
        }
        table.xShmMap = { file, page, pageSize, extend, pointer in
            guard let (inner, methods) = FaultFile.real(file), methods.iVersion >= 2, let call = methods.xShmMap else {
                return SQLiteError.IOErrorCode.shmMap
            }
            return call(inner, page, pageSize, extend, pointer)
        }
        table.xShmLock = { file, offset, count, flags in
            guard let (inner, methods) = FaultFile.real(file), methods.iVersion >= 2, let call = methods.xShmLock else {
                return SQLiteError.IOErrorCode.shmLock
            }
            return call(inner, offset, count, flags)
        }
        table.xShmBarrier = { file in
            guard let (inner, methods) = FaultFile.real(file), methods.iVersion >= 2, let call = methods.xShmBarrier
            else {
                return
            }
            call(inner)
        }
        table.xShmUnmap = { file, delete in
            guard let (inner, methods) = FaultFile.real(file), methods.iVersion >= 2, let call = methods.xShmUnmap
            else {
                return SQLITE_OK
            }
            return call(inner, delete)
        }
        return table
    }
}
