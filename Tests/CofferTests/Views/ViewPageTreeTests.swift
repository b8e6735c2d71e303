import Foundation
import Testing

@testable import Coffer

/// The order-statistics tree of a view group's pages, against a plain array of the same pages.
@Suite struct ViewPageTreeTests {
    /// The model: pages in order with their row counts.
    struct Model {
        var pages: [(page: Int64, rows: Int)] = []

        func locate(_ index: Int) -> (page: Int64, offset: Int)? {
            guard index >= 0 else { return nil }
            var remaining = index
            for entry in pages {
                if remaining < entry.rows { return (entry.page, remaining) }
                remaining -= entry.rows
            }
            return nil
        }
    }

    private func check(_ tree: ViewPageTree, _ model: Model) {
        #expect(tree.pageCount == model.pages.count)
        #expect(tree.rowCount == model.pages.reduce(0) { $0 + $1.rows })
        #expect(tree.pages.map(\.page) == model.pages.map(\.page))
        #expect(tree.pages.map(\.rows) == model.pages.map(\.rows))
        var first = 0
        for (position, entry) in model.pages.enumerated() {
            #expect(tree.position(of: entry.page) == position)
            #expect(tree.page(at: position) == entry.page)
            #expect(tree.firstRow(of: entry.page) == first)
            #expect(tree.rows(in: entry.page) == entry.rows)
            first += entry.rows
        }
        for index in stride(from: -1, through: first, by: max(1, first / 97)) {
            let found = tree.locate(row: index)
            let expected = model.locate(index)
            #expect(found?.page == expected?.page && found?.offset == expected?.offset, "row \(index)")
        }
    }

    @Test func anEmptyTreeFindsNothing() {
        let tree = ViewPageTree()
        #expect(tree.pageCount == 0 && tree.rowCount == 0)
        #expect(tree.locate(row: 0) == nil)
        #expect(tree.page(at: 0) == nil)
        #expect(tree.firstRow(of: 1) == nil)
    }

    @Test func pagesKeepTheirOrderAndRowsAddUp() {
        var tree = ViewPageTree()
        var model = Model()
        for (page, rows) in [(Int64(10), 50), (11, 25), (12, 50)] {
            let changed1 = tree.insert(page, rows: rows, at: tree.pageCount)
            #expect(changed1)
            model.pages.append((page, rows))
        }
        let changed2 = tree.insert(13, rows: 7, at: 1)
        #expect(changed2)
        model.pages.insert((13, 7), at: 1)
        check(tree, model)
        #expect(tree.locate(row: 57)?.page == 11)
        #expect(tree.locate(row: 57)?.offset == 0)
        let changed3 = tree.setRows(49, of: 10)
        #expect(changed3)
        model.pages[0].rows = 49
        let changed4 = tree.remove(12)
        #expect(changed4)
        model.pages.remove(at: 3)
        check(tree, model)
    }

    @Test func misuseChangesNothing() {
        var tree = ViewPageTree()
        let changed5 = tree.insert(1, rows: 3, at: 0)
        #expect(changed5)
        let changed6 = tree.insert(1, rows: 3, at: 0)
        #expect(!changed6, "a page is in the tree once")
        let changed7 = tree.insert(2, rows: 3, at: 5)
        #expect(!changed7, "past the end")
        let changed8 = tree.insert(2, rows: -1, at: 0)
        #expect(!changed8)
        let changed9 = tree.remove(9)
        #expect(!changed9)
        let changed10 = tree.setRows(4, of: 9)
        #expect(!changed10)
        let changed11 = tree.setRows(-1, of: 1)
        #expect(!changed11)
        #expect(tree.pageCount == 1 && tree.rowCount == 3)
    }

    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE])
    func randomOperationsMatchTheModel(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var tree = ViewPageTree()
        var model = Model()
        var nextPage: Int64 = 1
        for step in 0..<3_000 {
            switch random.next() % 10 {
            case 0...3:
                let position = Int(random.next() % UInt64(model.pages.count + 1))
                let rows = Int(random.next() % 51)
                let changed12 = tree.insert(nextPage, rows: rows, at: position)
                #expect(changed12)
                model.pages.insert((nextPage, rows), at: position)
                nextPage += 1
            case 4...5 where !model.pages.isEmpty:
                let position = Int(random.next() % UInt64(model.pages.count))
                let changed13 = tree.remove(model.pages[position].page)
                #expect(changed13)
                model.pages.remove(at: position)
            case 6...9 where !model.pages.isEmpty:
                let position = Int(random.next() % UInt64(model.pages.count))
                let rows = Int(random.next() % 51)
                let changed14 = tree.setRows(rows, of: model.pages[position].page)
                #expect(changed14)
                model.pages[position].rows = rows
            default:
                break
            }
            if step % 250 == 0 { check(tree, model) }
        }
        check(tree, model)
    }

    @Test func aMillionRowsStayLogarithmic() {
        var tree = ViewPageTree()
        for page in 0..<Int64(20_000) { tree.insert(page, rows: 50, at: Int(page)) }
        #expect(tree.rowCount == 1_000_000)
        #expect(tree.locate(row: 999_999)?.page == 19_999)
        #expect(tree.locate(row: 500_025)?.offset == 25)
        #expect(tree.firstRow(of: 12_345) == 617_250)
        // Splitting a page in the middle inserts one after it.
        tree.setRows(25, of: 10_000)
        tree.insert(20_000, rows: 25, at: tree.position(of: 10_000).map { $0 + 1 } ?? 0)
        #expect(tree.firstRow(of: 20_000) == 500_025)
        #expect(tree.firstRow(of: 10_001) == 500_050)
    }

    /// A small seeded generator, so every run makes the same sequence.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}

/// Pages of rowids, stored as YapDatabase stores them.
@Suite struct ViewPageTests {
    @Test func aPageRoundTripsAsLittleEndianRowids() throws {
        let page = ViewPage([1, 0x0102_0304_0506_0708, -1, .max])
        let data = page.encoded
        #expect(data.count == 32)
        #expect(Array(data.prefix(8)) == [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(data[8..<16]) == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(try ViewPage(decoding: data, view: "v") == page)
        #expect(try ViewPage(decoding: Data(), view: "v") == ViewPage())
    }

    @Test func aTruncatedPageIsCorrupt() {
        let error = #expect(throws: DatabaseError.self) { try ViewPage(decoding: Data([1, 2, 3]), view: "inbox") }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("inbox") == true)
    }

    @Test func anOverfullPageSplitsInHalves() {
        var page = ViewPage((0..<51).map(Int64.init))
        #expect(page.isOverfull)
        let second = page.splitOffSecondHalf()
        #expect(page.rowids == (0..<25).map(Int64.init))
        #expect(second.rowids == (25..<51).map(Int64.init))
        #expect(!page.isOverfull && !second.isOverfull)
    }
}
