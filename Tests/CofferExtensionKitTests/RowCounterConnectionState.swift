import Coffer

/// A ``RowCounter``'s state on one connection: the committed counts it has read, as of the
/// connection's snapshot.
///
/// Other connections' commits arrive through ``noteCommitted(_:)`` before this connection's next
/// transaction sees them, so the cached counts move with the snapshot without reading the table
/// again; a long-lived read keeps them where it is pinned.
final class RowCounterConnectionState: ExtensionConnectionState {
    typealias Changes = RowCounterChanges

    /// What the state did, for tests to tell a cached answer from a table read.
    struct Statistics: Equatable {
        /// Counts read from the table (cache misses).
        var tableReads = 0
        /// Changesets of other connections delivered through ``noteCommitted(_:)``.
        var deliveries = 0
        /// Calls of ``flushMemory()``.
        var flushes = 0
        /// Calls of ``reset()``.
        var resets = 0
    }

    let counter: RowCounter
    let table: String
    /// Collection → committed count; a collection absent here has not been read yet, unless
    /// ``cacheIsComplete``, when it is empty.
    private(set) var cache: [String: Int] = [:]
    /// Whether ``cache`` holds every collection (after ``RowCounterTransaction/counts()``).
    private(set) var cacheIsComplete = false
    var statistics = Statistics()
    private let census: StateCensus?

    init(counter: RowCounter, table: String, census: StateCensus?) {
        self.counter = counter
        self.table = table
        self.census = census
        census?.noteMade()
    }

    deinit {
        census?.noteReleased()
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        RowCounterTransaction(context: context, state: self)
    }

    func noteCommitted(_ changes: RowCounterChanges) {
        statistics.deliveries += 1
        apply(changes.deltas)
    }

    func flushMemory() {
        statistics.flushes += 1
        forget()
    }

    func reset() {
        statistics.resets += 1
        forget()
    }

    /// Moves the cached counts by a commit's deltas; counts not cached are read when needed.
    func apply(_ deltas: [String: Int]) {
        for (collection, delta) in deltas {
            if let cached = cache[collection] {
                cache[collection] = cached + delta
            } else if cacheIsComplete {
                cache[collection] = delta
            }
        }
    }

    /// Keeps the committed count of one collection.
    func remember(_ count: Int, for collection: String) {
        cache[collection] = count
    }

    /// Keeps the committed count of every collection (those absent are empty).
    func rememberAll(_ counts: [String: Int]) {
        cache = counts
        cacheIsComplete = true
    }

    private func forget() {
        cache = [:]
        cacheIsComplete = false
    }
}
