import Foundation

/// One item of one row, as the manager tracks it: the row and the item's identifier, which is
/// unique among the row's items.
struct ActionItemID: Hashable, Sendable {
    let row: CollectionKey
    let identifier: String
}

/// What the manager knows of an item beyond what the row returns: whether and when it ran.
struct TrackedAction {
    var item: ActionItem
    /// Runs started since the manager first saw this item (0: never run).
    var attempts = 0
    /// When to run it again, when it has run and has a retry timeout.
    var nextRetry: Date?
    /// Whether it is due but waits for the network.
    var waitsForNetwork = false

    /// When the item is next due: its date until it first runs, then its retry; nil once it ran
    /// for good.
    var dueDate: Date? { attempts == 0 ? item.date : nextRetry }
}

/// The dates at which items fall due, earliest first: a binary min-heap.
///
/// Entries are not removed when their item changes or goes; the manager checks each entry it
/// takes against what it tracks, so a stale one costs a look and nothing more.
struct ActionTimeline {
    private var heap: [(date: Date, id: ActionItemID)] = []

    /// The number of entries, stale ones included.
    var count: Int { heap.count }

    /// The earliest entry.
    var first: (date: Date, id: ActionItemID)? { heap.first }

    /// Adds an entry.
    ///
    /// - Complexity: O(log n).
    mutating func insert(_ id: ActionItemID, at date: Date) {
        heap.append((date, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].date < heap[parent].date else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry.
    ///
    /// - Complexity: O(log n).
    mutating func removeFirst() -> (date: Date, id: ActionItemID)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].date < heap[smallest].date { smallest = left }
            if right < heap.count && heap[right].date < heap[smallest].date { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }

    /// Removes every entry.
    mutating func removeAll() { heap.removeAll() }
}
