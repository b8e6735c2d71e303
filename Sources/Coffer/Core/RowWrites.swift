/// A transaction's whole-row writes in the order it made them, the first one kept inline.
///
/// Most write transactions write one row: in an array, that one write allocated the array's
/// storage at every commit, and the changeset freed it.
struct RowWrites: Sequence {
    /// One write: a struct rather than a tuple, since freeing a transaction's list destroys each
    /// tuple through the runtime's generic tuple witness and then each field's.
    struct Element {
        let key: CollectionKey
        let change: RowChange
    }

    /// The capacity of each chunk after the first: a chunk is allocated once at this size, so a
    /// bulk write never copies the writes it recorded (an array doubling its storage copied each
    /// write about twice over).
    static let chunkCapacity = 1024

    /// The first write; the chunks are empty while this is nil.
    private var first: Element?
    /// Full chunks of writes after the first, in order.
    private var full: [[Element]] = []
    /// The chunk being filled, after `full`; it grows as an array until it holds `chunkCapacity`.
    private var rest: [Element] = []

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + full.count * Self.chunkCapacity + rest.count }
    var underestimatedCount: Int { count }

    /// Adds a write after the others.
    mutating func append(_ key: consuming CollectionKey, _ change: RowChange) {
        if first == nil {
            first = Element(key: key, change: change)
            return
        }
        if rest.count == Self.chunkCapacity {
            full.append(rest)
            rest = []
            rest.reserveCapacity(Self.chunkCapacity)
        }
        rest.append(Element(key: key, change: change))
    }

    func makeIterator() -> Iterator {
        Iterator(first: first, chunks: full.makeIterator(), last: rest, current: [].makeIterator())
    }

    /// The first write, then the chunks' in order.
    struct Iterator: IteratorProtocol {
        fileprivate var first: Element?
        fileprivate var chunks: IndexingIterator<[[Element]]>
        /// The chunk being filled, until the iteration reaches it.
        fileprivate var last: [Element]?
        fileprivate var current: IndexingIterator<[Element]>

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            while true {
                if let element = current.next() { return element }
                if let chunk = chunks.next() {
                    current = chunk.makeIterator()
                } else if let chunk = last {
                    last = nil
                    current = chunk.makeIterator()
                } else {
                    return nil
                }
            }
        }
    }
}
