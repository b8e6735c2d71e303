internal import CSQLCipher
import Synchronization

/// A test-only SQLite VFS that wraps the default `unix` VFS and fails chosen reads, writes,
/// syncs and truncations, to test Coffer against a failing or full disk.
///
/// Nothing uses it unless a test asks: it is registered only by ``register()`` (never as the
/// default VFS), under the name ``name``, and a database uses it only when opened with that
/// name (`DatabaseOptions.vfsName`, package access). Which calls fail is decided by the
/// ``FaultController`` of the directory holding the file; files outside every controller's
/// directory behave exactly as with `unix`.
///
/// The wrapper reports version 2 file methods, so SQLite never memory-maps a file opened through
/// it: every page read goes through `xRead`, where a read fault can reach it.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/vfs.html>, <https://sqlite.org/c3ref/io_methods.html>.
package enum FaultInjectingVFS {
    /// The name the VFS is registered under.
    package static let name = "coffer-fault"

    /// Registers the VFS with SQLite (not as the default); later calls do nothing.
    /// - Throws: ``SQLiteError`` when the `unix` VFS is missing or registration fails.
    package static func register() throws {
        try registration.withLock { registered in
            guard !registered else { return }
            guard let vfs = vfsStorage.vfs else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the unix VFS is not available", path: name)
            }
            let rc = sqlite3_vfs_register(vfs, 0)
            guard rc == SQLITE_OK else {
                throw SQLiteError(code: rc, message: "cannot register the \(name) VFS", path: name)
            }
            registered = true
        }
    }

    private static let registration = Mutex(false)
}

/// The C structures SQLite keeps pointers to for the life of the process.
///
/// The VFS object, its name, and the file method table: allocated once, never freed or changed afterwards.
final class FaultVFSStorage: @unchecked Sendable {
    // Safety: both tables are written once, in `init`, before any pointer to them is handed to
    // SQLite, and only read afterwards (from any thread).
    let vfs: UnsafeMutablePointer<sqlite3_vfs>?
    let methods: UnsafeMutablePointer<sqlite3_io_methods>

    init() {
        methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: FaultFile.methodTable())
        guard let real = sqlite3_vfs_find("unix") else {
            vfs = nil
            return
        }
        let utf8 = Array(FaultInjectingVFS.name.utf8CString)
        let name = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        name.initialize(from: utf8, count: utf8.count)
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = Int32(FaultFile.headerSize) + real.pointee.szOsFile
        vfs.pointee.mxPathname = real.pointee.mxPathname
        vfs.pointee.zName = UnsafePointer(name)
        // Every method below forwards to the real VFS found here, passing the real VFS object.
        vfs.pointee.pAppData = UnsafeMutableRawPointer(real)
        vfs.pointee.xOpen = faultOpen
        vfs.pointee.xDelete = { vfs, path, syncDirectory in
            guard let real = realVFS(vfs), let call = real.pointee.xDelete else {
                return SQLiteError.IOErrorCode.delete
            }
            return call(real, path, syncDirectory)
        }
        vfs.pointee.xAccess = { vfs, path, flags, result in
            guard let real = realVFS(vfs), let call = real.pointee.xAccess else {
                return SQLiteError.IOErrorCode.access
            }
            return call(real, path, flags, result)
        }
        vfs.pointee.xFullPathname = { vfs, path, count, output in
            guard let real = realVFS(vfs), let call = real.pointee.xFullPathname else { return SQLITE_CANTOPEN }
            return call(real, path, count, output)
        }
        vfs.pointee.xDlOpen = { vfs, path in
            guard let real = realVFS(vfs), let call = real.pointee.xDlOpen else { return nil }
            return call(real, path)
        }
        vfs.pointee.xDlError = { vfs, count, message in
            guard let real = realVFS(vfs), let call = real.pointee.xDlError else { return }
            call(real, count, message)
        }
        vfs.pointee.xDlSym = { vfs, library, symbol in
            guard let real = realVFS(vfs), let call = real.pointee.xDlSym else { return nil }
            return call(real, library, symbol)
        }
        vfs.pointee.xDlClose = { vfs, library in
            guard let real = realVFS(vfs), let call = real.pointee.xDlClose else { return }
            call(real, library)
        }
        vfs.pointee.xRandomness = { vfs, count, output in
            guard let real = realVFS(vfs), let call = real.pointee.xRandomness else { return 0 }
            return call(real, count, output)
        }
        vfs.pointee.xSleep = { vfs, microseconds in
            guard let real = realVFS(vfs), let call = real.pointee.xSleep else { return 0 }
            return call(real, microseconds)
        }
        vfs.pointee.xCurrentTime = { vfs, time in
            guard let real = realVFS(vfs), let call = real.pointee.xCurrentTime else { return SQLITE_ERROR }
            return call(real, time)
        }
        vfs.pointee.xGetLastError = { vfs, count, message in
            guard let real = realVFS(vfs), let call = real.pointee.xGetLastError else { return 0 }
            return call(real, count, message)
        }
        vfs.pointee.xCurrentTimeInt64 = { vfs, time in
            guard let real = realVFS(vfs), let call = real.pointee.xCurrentTimeInt64 else { return SQLITE_ERROR }
            return call(real, time)
        }
        self.vfs = vfs
    }
}

/// The tables SQLite uses for files opened through the fault VFS (built on first use).
let vfsStorage = FaultVFSStorage()

/// The `unix` VFS a fault VFS object wraps.
private func realVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
    vfs?.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self)
}

/// Opens the real file inside ours, then records its kind and the controller governing it.
private func faultOpen(
    _ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ path: UnsafePointer<CChar>?,
    _ file: UnsafeMutablePointer<sqlite3_file>?,
    _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let file else { return SQLITE_CANTOPEN }
    file.pointee.pMethods = nil
    guard let real = realVFS(vfs), let open = real.pointee.xOpen else { return SQLITE_CANTOPEN }
    let inner = FaultFile.inner(file)
    inner.pointee.pMethods = nil
    let rc = open(real, path, inner, flags, outFlags)
    let kind = FaultFile.kind(openFlags: flags)
    let scope = path.map { path in faultRegistry.withLock { $0.scope(forPath: String(cString: path)) } } ?? 0
    FaultFile.setIdentity(file, scope: scope, kind: kind)
    // SQLite calls xClose only when pMethods is set; mirror whatever the real open left.
    if inner.pointee.pMethods != nil {
        file.pointee.pMethods = UnsafePointer(vfsStorage.methods)
    }
    return rc
}
