/// The key table of the last value a coder handled, kept because the values of one collection
/// nearly always share it.
///
/// The encoder follows the cached keys while a value's keys come in the same order, so a new key
/// costs one comparison instead of a scan of the table, and copies the cached table bytes when
/// the value used exactly those keys. The decoder compares a value's table bytes with the cached
/// ones and, when they are equal, reuses the key ranges found (and validated) before.
final class BinaryKeyTableCache: Sendable {
    /// A key table: its keys in order, its bytes (count and keys, as stored) and where each key's
    /// UTF-8 bytes start and how long they are (flattened pairs, offsets from the value's start).
    struct Entry: Sendable {
        var keys: [String]
        var bytes: [UInt8]
        var ranges: [Int]
    }

    private let last = Locked<Entry?>(nil)

    func load() -> Entry? { last.withLock { $0 } }

    func store(_ entry: Entry) { last.withLock { $0 = entry } }
}

/// The ids of the open containers, innermost last: eight kept inline, deeper ones in an array.
struct BinaryOpenContainers {
    private var inline = SIMD8<Int>()
    private var overflow: [Int] = []
    private(set) var count = 0

    /// The innermost open container's id; 0 when none is open.
    var top: Int { count == 0 ? 0 : self[count - 1] }

    subscript(index: Int) -> Int { index < 8 ? inline[index] : overflow[index - 8] }

    mutating func push(_ id: Int) {
        if count < 8 {
            inline[count] = id
        } else {
            overflow.append(id)
        }
        count += 1
    }

    /// The position of container `id`, searched from the innermost.
    func index(of id: Int) -> Int? {
        var index = count - 1
        while index >= 0 {
            if self[index] == id { return index }
            index -= 1
        }
        return nil
    }

    /// Closes every container after the first `newCount`.
    mutating func truncate(to newCount: Int) {
        if newCount < 8 {
            overflow.removeAll(keepingCapacity: true)
        } else {
            overflow.removeSubrange((newCount - 8)...)
        }
        count = newCount
    }
}
