/// A recency-ordered list stored in one contiguous buffer, shared by ``Cache`` and ``BidirectionalCache``.
///
/// Nodes link to each other by slot number (`Int32`) instead of by reference, so the list costs no
/// per-entry allocation and no reference counting on the hot path. Slots are kept dense: removing
/// a node moves the last node into the freed slot, and the owner re-indexes the moved element.
/// The front (``head``) is the most recently used element, the back (``tail``) the least.
@usableFromInline
struct LRUList<Element> {
    /// One element with the slots of its neighbours (`-1` for none).
    @usableFromInline
    struct Node {
        var element: Element
        var prev: Int32
        var next: Int32
    }

    /// Marks "no slot" in `head`, `tail`, `prev` and `next`.
    static var none: Int32 { -1 }

    @usableFromInline private(set) var nodes: ContiguousArray<Node> = []
    /// Where a node keeps its element, asked once: the key path lookup costs more than a read.
    @usableFromInline let elementOffset = MemoryLayout<Node>.offset(of: \Node.element) ?? 0
    /// The most recently used slot, or `none` when empty.
    private(set) var head: Int32 = -1
    /// The least recently used slot, or `none` when empty.
    private(set) var tail: Int32 = -1

    /// The number of elements.
    var count: Int { nodes.count }

    /// The element stored in `slot`.
    ///
    /// - Complexity: O(1).
    subscript(slot: Int32) -> Element {
        nodes[Int(slot)].element
    }

    /// Calls `body` with the address of the element stored in `slot`, valid only during the call.
    ///
    /// Reading one field of an element through ``subscript(slot:)`` (or even through the buffer's
    /// subscript) copies the whole node first when `Element` is generic and address-only — a cache
    /// entry's key and value, then their destruction; a field read at its own address is not.
    ///
    /// - Complexity: O(1).
    @inlinable
    func withElementAddress<R>(at slot: Int32, _ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
        try nodes.withUnsafeBufferPointer { buffer in
            try body(UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + Int(slot)).advanced(by: elementOffset))
        }
    }

    /// Stores `element` as the new front and returns its slot.
    ///
    /// - Complexity: amortized O(1).
    mutating func pushFront(_ element: Element) -> Int32 {
        let slot = Int32(truncatingIfNeeded: nodes.count)
        assert(Int(slot) == nodes.count, "LRUList cannot address more than Int32.max elements")
        nodes.append(Node(element: element, prev: Self.none, next: head))
        if head != Self.none {
            nodes[Int(head)].prev = slot
        } else {
            tail = slot
        }
        head = slot
        return slot
    }

    /// Replaces the element in `slot` and makes it the front.
    ///
    /// - Complexity: O(1).
    mutating func replace(at slot: Int32, with element: Element) {
        nodes[Int(slot)].element = element
        moveToFront(slot)
    }

    /// Makes the element in `slot` the most recently used one.
    ///
    /// - Complexity: O(1).
    mutating func moveToFront(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        let i = Int(slot)
        nodes[i].prev = Self.none
        nodes[i].next = head
        if head != Self.none {
            nodes[Int(head)].prev = slot
        } else {
            tail = slot
        }
        head = slot
    }

    /// Removes the element in `slot`.
    ///
    /// To keep the buffer dense the last node moves into `slot`; when that happens `moved` is the
    /// element now found in `slot`, and the owner must point its index(es) for it at `slot`.
    ///
    /// - Complexity: O(1).
    mutating func remove(at slot: Int32) -> (removed: Element, moved: Element?) {
        unlink(slot)
        let lastSlot = Int32(truncatingIfNeeded: nodes.count - 1)
        guard slot != lastSlot else {
            return (nodes.removeLast().element, nil)
        }
        nodes.swapAt(Int(slot), Int(lastSlot))
        let removed = nodes.removeLast().element
        // The node now in `slot` came from `lastSlot`; its neighbours still point at `lastSlot`.
        let prev = nodes[Int(slot)].prev
        let next = nodes[Int(slot)].next
        if prev != Self.none {
            nodes[Int(prev)].next = slot
        } else {
            head = slot
        }
        if next != Self.none {
            nodes[Int(next)].prev = slot
        } else {
            tail = slot
        }
        return (removed, nodes[Int(slot)].element)
    }

    /// Removes every element and releases the storage.
    ///
    /// - Complexity: O(n).
    mutating func removeAll() {
        nodes = []
        head = Self.none
        tail = Self.none
    }

    /// Calls `body` with every element, most recently used first.
    ///
    /// - Complexity: O(n).
    func forEach(_ body: (Element) throws -> Void) rethrows {
        var slot = head
        while slot != Self.none {
            let node = nodes[Int(slot)]
            try body(node.element)
            slot = node.next
        }
    }

    /// Detaches `slot` from its neighbours; its own `prev`/`next` are left stale.
    private mutating func unlink(_ slot: Int32) {
        // Read the links field by field: copying the whole node would retain its element.
        let prev = nodes[Int(slot)].prev
        let next = nodes[Int(slot)].next
        if prev != Self.none {
            nodes[Int(prev)].next = next
        } else {
            head = next
        }
        if next != Self.none {
            nodes[Int(next)].prev = prev
        } else {
            tail = prev
        }
    }
}

extension LRUList.Node: Sendable where Element: Sendable {}
extension LRUList: Sendable where Element: Sendable {}
