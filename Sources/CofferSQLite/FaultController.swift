import Synchronization

/// Arms, counts and clears injected I/O faults for the files under one directory (test-only).
///
/// Create a controller for a test's own temporary directory before opening any database in it:
/// a file is bound to the controller whose directory holds it when SQLite opens it through
/// ``FaultInjectingVFS``. Tests running in parallel in other directories are never affected.
/// Releasing the controller stops injecting into its files (they keep working normally).
package final class FaultController: Sendable {
    /// The directory whose files this controller governs (no trailing slash).
    package let directory: String
    let id: UInt64

    /// Starts governing the files SQLite opens under `directory` through ``FaultInjectingVFS``
    /// from now on.
    package init(directory: String) {
        var normalized = directory
        while normalized.count > 1 && normalized.hasSuffix("/") { normalized.removeLast() }
        self.directory = normalized
        self.id = faultRegistry.withLock { $0.addScope(directory: normalized) }
    }

    deinit {
        faultRegistry.withLock { $0.removeScope(id) }
    }

    /// Arms `fault`, replacing any armed one; its matching calls are counted from zero.
    package func arm(_ fault: IOFault) {
        faultRegistry.withLock { $0.arm(fault, scope: id) }
    }

    /// Clears the armed fault: from now on every call goes through to the real file ("the fault clears").
    package func disarm() {
        faultRegistry.withLock { $0.arm(nil, scope: id) }
    }

    /// The fault currently armed, if any.
    package var armedFault: IOFault? {
        faultRegistry.withLock { $0.scopes[id]?.fault }
    }

    /// How many calls failed because of the armed fault since it was armed.
    package var injectedSinceArmed: Int {
        faultRegistry.withLock { $0.scopes[id]?.injectedSinceArmed ?? 0 }
    }

    /// How many calls failed because of a fault over this controller's life.
    package var injectedTotal: Int {
        faultRegistry.withLock { $0.scopes[id]?.injectedTotal ?? 0 }
    }

    /// How many `operation` calls reached files of `kind` since the counts were last reset
    /// (failed ones included).
    package func calls(_ operation: IOFault.Operation, on kind: IOFault.FileKind = .any) -> Int {
        faultRegistry.withLock { registry in
            guard let scope = registry.scopes[id] else { return 0 }
            return scope.calls.reduce(0) { total, entry in
                entry.key.operation == operation && entry.key.kind.matches(kind) ? total + entry.value : total
            }
        }
    }

    /// Sets every call count to zero (injection counts are kept).
    package func resetCounts() {
        faultRegistry.withLock { $0.scopes[id]?.calls = [:] }
    }
}

/// Every live ``FaultController``'s state, behind one lock: SQLite calls the VFS from any thread.
let faultRegistry = Mutex(FaultRegistry())

/// The armed faults and call counts of every directory under test.
struct FaultRegistry {
    struct CallKey: Hashable {
        var operation: IOFault.Operation
        var kind: IOFault.FileKind
    }

    struct Scope {
        var directory: String
        var fault: IOFault?
        var matchingCalls = 0
        var injectedSinceArmed = 0
        var injectedTotal = 0
        var calls: [CallKey: Int] = [:]
    }

    /// 0 means "no scope": such files are never counted or failed.
    private var nextID: UInt64 = 1
    var scopes: [UInt64: Scope] = [:]

    mutating func addScope(directory: String) -> UInt64 {
        let id = nextID
        nextID += 1
        scopes[id] = Scope(directory: directory)
        return id
    }

    mutating func removeScope(_ id: UInt64) {
        scopes[id] = nil
    }

    mutating func arm(_ fault: IOFault?, scope id: UInt64) {
        scopes[id]?.fault = fault
        scopes[id]?.matchingCalls = 0
        scopes[id]?.injectedSinceArmed = 0
    }

    /// The scope governing `path`: the one with the longest directory that contains it, or 0.
    func scope(forPath path: String) -> UInt64 {
        var best: (id: UInt64, length: Int) = (0, -1)
        for (id, scope) in scopes where path.hasPrefix(scope.directory + "/") {
            let length = scope.directory.utf8.count
            if length > best.length { best = (id, length) }
        }
        return best.id
    }

    /// Counts one call and returns the result code to fail it with, or nil to let it through.
    mutating func intercept(scope id: UInt64, operation: IOFault.Operation, kind: IOFault.FileKind) -> Int32? {
        // Taken out and put back so the counts are mutated in place, not copied on every call.
        guard var scope = scopes.removeValue(forKey: id) else { return nil }
        defer { scopes[id] = scope }
        scope.calls[CallKey(operation: operation, kind: kind), default: 0] += 1
        guard let fault = scope.fault, fault.operation == operation, kind.matches(fault.file) else { return nil }
        scope.matchingCalls += 1
        guard scope.matchingCalls == fault.nth || (fault.persistent && scope.matchingCalls > fault.nth) else {
            return nil
        }
        scope.injectedSinceArmed += 1
        scope.injectedTotal += 1
        return fault.resultCode
    }
}
