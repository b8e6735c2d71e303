/// The pages of one view group in order, with the number of rows each holds: an order-statistics
/// tree, so that row `i` of the group, the first row of a page, and a page's place are all found
/// in O(log p) for p pages, and a page is inserted, removed or resized in O(log p) too.
///
/// YapDatabase walks a group's page list to turn an index into a page (20,000 pages for a million
/// rows); this tree keeps that logarithmic. It is an implicit treap: nodes in arrays, ordered by
/// position, each with the number of pages and rows below it, heap-ordered by a priority drawn from
/// a seeded generator, so the same operations always build the same tree.
struct ViewPageTree: Sendable {
    /// A page's identity (its key in the view's page table).
    typealias PageID = Int64

    fileprivate struct Node: Sendable {
        var page: PageID
        var rows: Int
        var priority: UInt64
        var left = -1
        var right = -1
        var parent = -1
        /// Pages in this subtree.
        var size = 1
        /// Rows in this subtree.
        var sum: Int
    }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var root = -1
    private var indexOfPage: [PageID: Int] = [:]
    private var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// An empty tree.
    init() {}

    /// The number of pages.
    var pageCount: Int { root < 0 ? 0 : nodes[root].size }
    /// The number of rows over all pages.
    var rowCount: Int { root < 0 ? 0 : nodes[root].sum }
    /// Whether `page` is in the tree.
    func contains(_ page: PageID) -> Bool { indexOfPage[page] != nil }

    /// The number of rows `page` holds, or nil when it is not in the tree.
    func rows(in page: PageID) -> Int? {
        indexOfPage[page].map { nodes[$0].rows }
    }

    // MARK: Reading

    /// The page holding row `index` of the group and the row's offset in it; nil when out of range.
    /// - Complexity: O(log p).
    func locate(row index: Int) -> (page: PageID, offset: Int)? {
        guard index >= 0, index < rowCount else { return nil }
        var node = root
        var remaining = index
        while node >= 0 {
            let left = nodes[node].left
            let leftRows = left < 0 ? 0 : nodes[left].sum
            if remaining < leftRows {
                node = left
            } else if remaining < leftRows + nodes[node].rows {
                return (nodes[node].page, remaining - leftRows)
            } else {
                remaining -= leftRows + nodes[node].rows
                node = nodes[node].right
            }
        }
        return nil
    }

    /// The group index of the first row of `page`, or nil when it is not in the tree.
    /// - Complexity: O(log p).
    func firstRow(of page: PageID) -> Int? {
        guard let node = indexOfPage[page] else { return nil }
        return before(node, measuring: \.sum, \.rows)
    }

    /// The position of `page` among the group's pages, or nil when it is not in the tree.
    /// - Complexity: O(log p).
    func position(of page: PageID) -> Int? {
        guard let node = indexOfPage[page] else { return nil }
        return before(node, measuring: \.size, \.one)
    }

    /// The page at `position`, or nil when out of range.
    /// - Complexity: O(log p).
    func page(at position: Int) -> PageID? {
        guard position >= 0, position < pageCount else { return nil }
        return nodes[node(atPosition: position)].page
    }

    /// The pages in order, with their row counts.
    /// - Complexity: O(p).
    var pages: [(page: PageID, rows: Int)] {
        var result: [(page: PageID, rows: Int)] = []
        result.reserveCapacity(pageCount)
        var stack: [Int] = []
        var node = root
        while node >= 0 || !stack.isEmpty {
            while node >= 0 {
                stack.append(node)
                node = nodes[node].left
            }
            let top = stack.removeLast()
            result.append((nodes[top].page, nodes[top].rows))
            node = nodes[top].right
        }
        return result
    }

    // MARK: Changing

    /// Inserts `page` holding `rows` rows at `position` among the pages (0...pageCount).
    /// - Returns: false, changing nothing, when the page is already in the tree or the position
    ///   is out of range.
    /// - Complexity: O(log p) expected.
    @discardableResult
    mutating func insert(_ page: PageID, rows: Int, at position: Int) -> Bool {
        guard indexOfPage[page] == nil, position >= 0, position <= pageCount, rows >= 0 else { return false }
        let node = allocate(page: page, rows: rows)
        let (left, right) = split(root, atPosition: position)
        root = merge(merge(left, node), right)
        setParent(root, -1)
        return true
    }

    /// Removes `page`.
    /// - Returns: false when it is not in the tree.
    /// - Complexity: O(log p) expected.
    @discardableResult
    mutating func remove(_ page: PageID) -> Bool {
        guard let node = indexOfPage[page], let position = position(of: page) else { return false }
        let (left, rest) = split(root, atPosition: position)
        let (removed, right) = split(rest, atPosition: 1)
        root = merge(left, right)
        setParent(root, -1)
        indexOfPage[page] = nil
        nodes[removed] = Node(page: 0, rows: 0, priority: 0, sum: 0)
        free.append(node)
        return true
    }

    /// Sets the number of rows `page` holds.
    /// - Returns: false when it is not in the tree or `rows` is negative.
    /// - Complexity: O(log p) expected.
    @discardableResult
    mutating func setRows(_ rows: Int, of page: PageID) -> Bool {
        guard let node = indexOfPage[page], rows >= 0 else { return false }
        let delta = rows - nodes[node].rows
        nodes[node].rows = rows
        var current = node
        while current >= 0 {
            nodes[current].sum += delta
            current = nodes[current].parent
        }
        return true
    }

    // MARK: Treap internals

    private mutating func allocate(page: PageID, rows: Int) -> Int {
        randomState &+= 0x9E37_79B9_7F4A_7C15
        var mixed = randomState
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        let fresh = Node(page: page, rows: rows, priority: mixed ^ (mixed >> 31), sum: rows)
        let node: Int
        if let reused = free.popLast() {
            nodes[reused] = fresh
            node = reused
        } else {
            nodes.append(fresh)
            node = nodes.count - 1
        }
        indexOfPage[page] = node
        return node
    }

    private mutating func update(_ node: Int) {
        let left = nodes[node].left
        let right = nodes[node].right
        nodes[node].size = 1 + (left < 0 ? 0 : nodes[left].size) + (right < 0 ? 0 : nodes[right].size)
        nodes[node].sum = nodes[node].rows + (left < 0 ? 0 : nodes[left].sum) + (right < 0 ? 0 : nodes[right].sum)
    }

    private mutating func setParent(_ node: Int, _ parent: Int) {
        if node >= 0 { nodes[node].parent = parent }
    }

    /// Splits `node`'s subtree into its first `position` pages and the rest.
    private mutating func split(_ node: Int, atPosition position: Int) -> (Int, Int) {
        guard node >= 0 else { return (-1, -1) }
        let left = nodes[node].left
        let leftSize = left < 0 ? 0 : nodes[left].size
        if position <= leftSize {
            let (first, second) = split(left, atPosition: position)
            nodes[node].left = second
            setParent(second, node)
            update(node)
            setParent(first, -1)
            return (first, node)
        } else {
            let (first, second) = split(nodes[node].right, atPosition: position - leftSize - 1)
            nodes[node].right = first
            setParent(first, node)
            update(node)
            setParent(second, -1)
            return (node, second)
        }
    }

    /// Joins two subtrees, every page of `first` before every page of `second`.
    private mutating func merge(_ first: Int, _ second: Int) -> Int {
        if first < 0 { return second }
        if second < 0 { return first }
        if nodes[first].priority > nodes[second].priority {
            let joined = merge(nodes[first].right, second)
            nodes[first].right = joined
            setParent(joined, first)
            update(first)
            return first
        } else {
            let joined = merge(first, nodes[second].left)
            nodes[second].left = joined
            setParent(joined, second)
            update(second)
            return second
        }
    }

    private func node(atPosition position: Int) -> Int {
        var node = root
        var remaining = position
        while true {
            let left = nodes[node].left
            let leftSize = left < 0 ? 0 : nodes[left].size
            if remaining < leftSize {
                node = left
            } else if remaining == leftSize {
                return node
            } else {
                remaining -= leftSize + 1
                node = nodes[node].right
            }
        }
    }

    /// What comes before `node` in order: the subtree measure of its left child plus, on the way
    /// to the root, every left sibling subtree and ancestor passed from the right.
    private func before(_ node: Int, measuring subtree: KeyPath<Node, Int>, _ own: KeyPath<Node, Int>) -> Int {
        let left = nodes[node].left
        var total = left < 0 ? 0 : nodes[left][keyPath: subtree]
        var child = node
        var parent = nodes[node].parent
        while parent >= 0 {
            if nodes[parent].right == child {
                let parentLeft = nodes[parent].left
                total += nodes[parent][keyPath: own] + (parentLeft < 0 ? 0 : nodes[parentLeft][keyPath: subtree])
            }
            child = parent
            parent = nodes[parent].parent
        }
        return total
    }
}

extension ViewPageTree.Node {
    /// One, for counting pages with the same walk that counts rows.
    fileprivate var one: Int { 1 }
}
