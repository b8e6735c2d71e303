/// One version of a key in a ``MemoryTable``: the value committed as `number`, or nil for a removal.
struct MemoryTableVersion<Value> {
    let number: UInt64
    let value: Value?
}

extension MemoryTableVersion: Sendable where Value: Sendable {}

/// The versions of one key, oldest first, never empty.
///
/// The oldest is stored inline and only newer ones in an array: almost every key has a single
/// version once readers moved on, and an empty array allocates nothing, so a large table costs
/// one dictionary slot per key rather than one heap array each.
struct MemoryTableVersionList<Value> {
    private(set) var oldest: MemoryTableVersion<Value>
    private var newer: [MemoryTableVersion<Value>] = []

    init(_ version: MemoryTableVersion<Value>) {
        oldest = version
    }

    var count: Int { 1 + newer.count }

    var newest: MemoryTableVersion<Value> { newer.last ?? oldest }

    /// The newest version at or below `snapshot`, or nil when every version is newer.
    func version(at snapshot: UInt64) -> MemoryTableVersion<Value>? {
        // Readers are almost always at or after the key's last change.
        let newest = newest
        if newest.number <= snapshot { return newest }
        for version in newer.reversed() where version.number <= snapshot { return version }
        return oldest.number <= snapshot ? oldest : nil
    }

    /// Adds a version newer than every stored one.
    mutating func append(_ version: MemoryTableVersion<Value>) {
        newer.append(version)
    }

    /// The list without its newest version (nil when that was the only one).
    func removingNewest() -> Self? {
        guard !newer.isEmpty else { return nil }
        var list = self
        list.newer.removeLast()
        return list
    }

    /// The list keeping only what readers at `floor` or later can see, and how many versions went.
    ///
    /// Versions older than the newest one at or below `floor` are hidden from those readers by
    /// it; that newest one goes too when it is a removal, since no version older than it is left
    /// to hide. Nil when nothing stays.
    func pruned(through floor: UInt64) -> (list: Self?, removed: Int) {
        guard oldest.number <= floor else { return (self, 0) }
        // The position (0: `oldest`, i: `newer[i - 1]`) of the newest version at or below `floor`.
        let visible = newer.lastIndex { $0.number <= floor }.map { $0 + 1 } ?? 0
        let visibleVersion = visible == 0 ? oldest : newer[visible - 1]
        let start = visibleVersion.value == nil ? visible + 1 : visible
        guard start > 0 else { return (self, 0) }
        guard start < count else { return (nil, count) }
        var list = Self(newer[start - 1])
        list.newer = Array(newer[start...])
        return (list, start)
    }
}

extension MemoryTableVersionList: Sendable where Value: Sendable {}
