import Foundation

/// The operations one commit added to a pipeline (YapDatabase's `YapDatabaseCloudCoreGraph`), in
/// the order they may start: highest priority first, then the order they were added.
///
/// Completed and skipped operations leave the graph when their transaction commits; the order
/// keeps their slots until more than half are dead, so a removal costs O(1) amortized.
struct CloudCoreGraph {
    /// One queued operation of the graph.
    struct Entry {
        /// The operation; nil when its bytes could not be decoded (it can never start).
        var operation: CloudOperation?
        var priority: Int32
        /// The order of addition, which breaks ties between equal priorities.
        var sequence: Int
    }

    /// The graph's number: commit order, kept in the file.
    let id: UInt64
    /// The queued operations.
    private(set) var entries: [UUID: Entry] = [:]
    /// Start order; may name removed operations, which are skipped.
    private(set) var order: [UUID] = []
    /// The first slot of ``order`` that may be live: slots before it are all removed.
    private var firstLive = 0
    private var nextSequence = 0

    init(id: UInt64) {
        self.id = id
    }

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The live operations in start order.
    var operations: [CloudOperation] {
        order.compactMap { entries[$0]?.operation }
    }

    /// Every queued UUID, undecodable ones included, in start order.
    var uuids: [UUID] {
        order.filter { entries[$0] != nil }
    }

    /// Adds operations (or undecodable placeholders) and restores the start order.
    mutating func insert(_ added: [(uuid: UUID, operation: CloudOperation?)]) {
        guard !added.isEmpty else { return }
        // Appending keeps the order while priorities do not rise: a commit of equal priorities
        // (the usual case) needs no sort.
        var sorted = true
        var lowest = order.last.flatMap { entries[$0]?.priority } ?? .max
        for (uuid, operation) in added {
            let priority = operation?.priority ?? 0
            if entries[uuid] == nil {
                order.append(uuid)
            } else {
                sorted = false
            }
            sorted = sorted && priority <= lowest
            lowest = min(lowest, priority)
            entries[uuid] = Entry(operation: operation, priority: priority, sequence: nextSequence)
            nextSequence += 1
        }
        if !sorted { sort() }
    }

    /// Replaces an operation's contents, keeping its place among equal priorities; false when
    /// the graph does not hold it.
    mutating func replace(_ operation: CloudOperation) -> Bool {
        guard var entry = entries[operation.uuid] else { return false }
        let reorder = entry.priority != operation.priority
        entry.operation = operation
        entry.priority = operation.priority
        entries[operation.uuid] = entry
        if reorder { sort() }
        return true
    }

    /// Removes an operation; false when the graph does not hold it.
    mutating func remove(_ uuid: UUID) -> Bool {
        guard entries.removeValue(forKey: uuid) != nil else { return false }
        if order.count > 2 * entries.count + 16 {
            order.removeAll { entries[$0] == nil }
            firstLive = 0
        }
        // Operations mostly finish in start order: keep the scan from walking finished slots.
        while firstLive < order.count, entries[order[firstLive]] == nil { firstLive += 1 }
        return true
    }

    /// Up to `limit` operations that `canStart` accepts, in start order, found in one pass.
    func startable(limit: Int, where canStart: (CloudOperation) -> Bool) -> [CloudOperation] {
        var found: [CloudOperation] = []
        guard limit > 0 else { return found }
        for uuid in order[firstLive...] {
            guard let operation = entries[uuid]?.operation, canStart(operation) else { continue }
            found.append(operation)
            if found.count == limit { break }
        }
        return found
    }

    private mutating func sort() {
        let entries = entries
        order.removeAll { entries[$0] == nil }
        firstLive = 0
        order.sort { left, right in
            // Both exist: dead slots were dropped just above.
            guard let a = entries[left], let b = entries[right] else { return false }
            return a.priority != b.priority ? a.priority > b.priority : a.sequence < b.sequence
        }
    }
}

/// Finds a dependency cycle through `start`, following `dependencies` of each operation.
enum CloudCoreCycles {
    /// Whether following dependencies from `start` leads back to it.
    static func reaches(_ start: UUID, from dependencies: Set<UUID>, _ lookUp: (UUID) throws -> Set<UUID>?) rethrows
        -> Bool
    {
        var stack = Array(dependencies)
        var seen = Set<UUID>()
        while let next = stack.popLast() {
            if next == start { return true }
            guard seen.insert(next).inserted, let further = try lookUp(next) else { continue }
            stack.append(contentsOf: further)
        }
        return false
    }
}
