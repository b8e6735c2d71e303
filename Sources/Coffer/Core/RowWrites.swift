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

    /// The first write; `rest` is empty while this is nil.
    private var first: Element?
    private var rest: [Element] = []

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + rest.count }
    var underestimatedCount: Int { count }

    /// Adds a write after the others.
    mutating func append(_ key: consuming CollectionKey, _ change: RowChange) {
        if first == nil {
            first = Element(key: key, change: change)
        } else {
            rest.append(Element(key: key, change: change))
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
