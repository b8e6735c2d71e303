import Foundation
import Testing

@testable import Coffer

/// A view group's rows in pages, against a plain array, and written back and read again as a
/// persistent view would.
@Suite struct ViewGroupListTests {
    /// Pages and the row → page map as a persistent view keeps them.
    final class Store {
        var pages: [Int64: ViewPage] = [:]
        var map: [Int64: Int64] = [:]
        var nextPage: Int64 = 1
        var loads = 0

        func list(group: String = "g", tree: ViewPageTree = ViewPageTree()) -> ViewGroupList {
            ViewGroupList(
                group: group, tree: tree,
                loadPage: { [unowned self] id in
                    loads += 1
                    guard let page = pages[id] else { throw DatabaseError(.corrupt, "no page \(id)") }
                    return page
                },
                pageOfRow: { [unowned self] rowid in map[rowid] },
                newPageID: { [unowned self] in
                    defer { nextPage += 1 }
                    return nextPage
                })
        }

        /// Writes what `list` changed, and returns the tree a reopened view would rebuild.
        func save(_ list: ViewGroupList) throws -> ViewPageTree {
            var copy = list
            for id in list.removedPages { pages[id] = nil }
            for id in list.dirtyPages {
                guard let rows = list.tree.rows(in: id), rows > 0 else { continue }
                var rowids: [Int64] = []
                rowids.reserveCapacity(rows)
                if let first = list.tree.firstRow(of: id) {
                    for index in first..<(first + rows) { rowids.append(try copy.rowid(at: index) ?? -1) }
                }
                pages[id] = ViewPage(rowids)
            }
            for (rowid, page) in list.movedRows { map[rowid] = page }
            var tree = ViewPageTree()
            for (position, entry) in list.tree.pages.enumerated() {
                tree.insert(entry.page, rows: entry.rows, at: position)
            }
            return tree
        }
    }

    private func check(_ list: inout ViewGroupList, _ model: [Int64]) throws {
        #expect(list.count == model.count)
        var seen: [Int64] = []
        try list.enumerate { index, rowid, _ in
            #expect(index == seen.count)
            seen.append(rowid)
        }
        #expect(seen == model)
        var backwards: [Int64] = []
        if !model.isEmpty {
            try list.enumerate(from: model.count - 1, reverse: true) { _, rowid, _ in backwards.append(rowid) }
        }
        #expect(backwards == model.reversed())
        for (index, rowid) in model.enumerated() where index % 7 == 0 {
            #expect(try list.rowid(at: index) == rowid)
            #expect(try list.index(of: rowid) == index)
        }
        #expect(try list.rowid(at: model.count) == nil)
        #expect(try list.index(of: -5) == nil)
        for page in list.tree.pages { #expect(page.rows > 0 && page.rows <= ViewPage.maximumRowCount) }
    }

    @Test func appendsFillPagesAndSplitThem() throws {
        let store = Store()
        var list = store.list()
        var model: [Int64] = []
        for rowid in Int64(1)...150 {
            #expect(try list.insert(rowid, at: list.count))
            model.append(rowid)
        }
        try check(&list, model)
        #expect(list.tree.pageCount >= 3)
        #expect(try !list.insert(999, at: 152), "past the end")
    }

    @Test func removingAWholeMiddlePageAndReAddingKeepsOrder() throws {
        let store = Store()
        var list = store.list()
        var model: [Int64] = []
        for rowid in Int64(1)...150 {
            _ = try list.insert(rowid, at: list.count)
            model.append(rowid)
        }
        let middle = list.tree.pages[1]
        let first = try #require(list.tree.firstRow(of: middle.page))
        for _ in 0..<middle.rows {
            _ = try list.remove(at: first)
            model.remove(at: first)
        }
        #expect(list.removedPages.contains(middle.page))
        try check(&list, model)
        for rowid in Int64(1000)..<1010 {
            _ = try list.insert(rowid, at: first)
            model.insert(rowid, at: first)
        }
        try check(&list, model)
        for rowid in model.enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
            let index = try list.remove(rowid)
            #expect(index == model.firstIndex(of: rowid))
            model.removeAll { $0 == rowid }
        }
        try check(&list, model)
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func randomChangesMatchTheModelAndSurviveAReload(seed: UInt64) throws {
        var random = ViewPageTreeTests.SplitMix(seed: seed)
        let store = Store()
        var list = store.list()
        var model: [Int64] = []
        var nextRow: Int64 = 1
        for round in 0..<6 {
            for _ in 0..<400 {
                switch random.next() % 5 {
                case 0...2:
                    let index = Int(random.next() % UInt64(model.count + 1))
                    #expect(try list.insert(nextRow, at: index))
                    model.insert(nextRow, at: index)
                    nextRow += 1
                case 3 where !model.isEmpty:
                    let index = Int(random.next() % UInt64(model.count))
                    #expect(try list.remove(at: index) == model.remove(at: index))
                case 4 where !model.isEmpty:
                    let rowid = model[Int(random.next() % UInt64(model.count))]
                    #expect(try list.remove(rowid) == model.firstIndex(of: rowid))
                    model.removeAll { $0 == rowid }
                default:
                    break
                }
            }
            try check(&list, model)
            // Write back, reopen from the stored pages and map, and carry on from there.
            let tree = try store.save(list)
            list = store.list(tree: tree)
            try check(&list, model)
            #expect(round >= 0)
        }
    }

    @Test func aMissingPageIsAnError() throws {
        let store = Store()
        var tree = ViewPageTree()
        tree.insert(42, rows: 3, at: 0)
        var list = store.list(tree: tree)
        #expect(throws: DatabaseError.self) { _ = try list.rowid(at: 1) }
    }
}
