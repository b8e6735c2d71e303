/// A transaction's whole-row writes in the order it made them, the first one kept inline.
///
/// Most write transactions write one row: in an array, that one write allocated the array's
/// storage at every commit, and the changeset freed it.
struct RowWrites: Sequence {
    typealias Element = (key: CollectionKey, change: RowChange)

    /// The first write; `rest` is empty while this is nil.
    private var first: Element?
    private var rest: [Element] = []

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + rest.count }
    var underestimatedCount: Int { count }

    /// Adds a write after the others.
    mutating func append(_ key: CollectionKey, _ change: RowChange) {
        if first == nil {
            first = (key, change)
        } else {
            rest.append((key, change))
        }
    }

    func makeIterator() -> Iterator {
        Iterator(first: first, rest: rest.makeIterator())
    }

    /// The first write, then the rest in order.
    struct Iterator: IteratorProtocol {
        fileprivate var first: Element?
        fileprivate var rest: IndexingIterator<[Element]>

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            return rest.next()
        }
    }
}
