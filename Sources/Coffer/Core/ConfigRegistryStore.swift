import Synchronization

/// The database's serializer, sanitizer and policy registry, numbered by a version every change
/// bumps.
///
/// A connection keeps the ``ConfigSnapshot`` its transactions resolve collections through (with
/// the collection resolved last) while the version is the same, so a transaction begun while
/// nothing was registered takes neither this lock nor the resolved-configuration cache's.
final class ConfigRegistryStore: Sendable {
    private let registry = Locked(ConfigRegistry())
    /// Bumped under the lock by every ``update(_:)``.
    private let changes = Atomic<UInt64>(0)

    /// The version of the registry now; a snapshot of this version is current.
    var version: UInt64 { changes.load(ordering: .acquiring) }

    /// Reads the registry under its lock.
    func read<Result, Failure: Error>(
        _ body: (ConfigRegistry) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try registry.withLock { registry throws(Failure) in try body(registry) }
    }

    /// Changes the registry under its lock and bumps the version (also when `body` throws, as it
    /// may have changed something first).
    func update<Result, Failure: Error>(
        _ body: (inout ConfigRegistry) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try registry.withLock { registry throws(Failure) in
            defer { changes.add(1, ordering: .releasing) }
            return try body(&registry)
        }
    }

    /// A copy of the registry, tagged with the version it was copied at.
    func snapshot() -> ConfigSnapshot {
        registry.withLock { ConfigSnapshot($0, version: changes.load(ordering: .relaxed)) }
    }
}
