import Testing

@testable import Coffer

/// YapDatabase's TestViewMappingsLogic cell-drawing-dependency scenarios: a row whose drawing
/// looks at its neighbour is redrawn when that neighbour is inserted, deleted or moved.
@Suite("ViewMappings drawing dependencies")
struct ViewMappingsDependencyTests {
    typealias L = ViewLogic

    /// A row change by kind, original and final index (`-1` where the kind has none) and the
    /// parts it reports, since dependency updates carry both indexes and their own flag.
    struct Shape: Hashable, CustomStringConvertible {
        var kind: ViewRowChange.Kind
        var from: Int
        var to: Int
        var parts: ViewChangedParts

        init(_ kind: ViewRowChange.Kind, _ from: Int, _ to: Int, _ parts: ViewChangedParts = []) {
            self.kind = kind
            self.from = from
            self.to = to
            self.parts = parts
        }

        init(_ change: ViewRowChange) {
            self.init(change.kind, change.originalIndex ?? -1, change.finalIndex ?? -1, change.changedParts)
        }

        var description: String { "\(kind) \(from) -> \(to) parts \(parts.rawValue)" }
    }

    /// The shapes of the row changes of running `records` on one group of `before` rows whose
    /// rows depend on the neighbour at `offset`, going to `after` rows.
    static func run(
        _ records: [ViewChangeRecord], offset: Int = -1, range: ViewRangeOptions? = nil, _ before: Int,
        _ after: Int
    ) -> [Shape] {
        var mappings = L.single(range)
        mappings.setCellDrawingDependency(forNeighboringCellWithOffset: offset, forGroup: "")
        return L.run(records, mappings, before, after).changes.rowChanges.map(Shape.init)
    }

    /// Only the kind and indexes of `shapes`, for changes whose parts YapDatabase's test does
    /// not look at.
    static func positions(_ shapes: [Shape]) -> [Shape] {
        shapes.map { Shape($0.kind, $0.from, $0.to) }
    }

    /// `shapes` with the parts kept for updates only, the changes whose parts YapDatabase's
    /// tests look at.
    static func updateParts(_ shapes: [Shape]) -> [Shape] {
        shapes.map { Shape($0.kind, $0.from, $0.to, $0.kind == .update ? $0.parts : []) }
    }

    @Test("1: deleting a row redraws the row below it")
    func dependency1() {
        let shapes = Self.run([L.delete("key0", at: 17)], 20, 19)
        #expect(Self.positions(shapes) == [Shape(.delete, 17, -1), Shape(.update, 18, 17)])
    }

    @Test("2: deleting the last two rows redraws nothing")
    func dependency2() {
        let shapes = Self.run(L.deletes(at: [18, 18]), 20, 18)
        #expect(Self.positions(shapes) == [Shape(.delete, 18, -1), Shape(.delete, 19, -1)])
    }

    @Test("3: an updated row below a delete reports both its own change and the dependency")
    func dependency3() {
        let records = [L.delete("key0", at: 10), L.update("key1", at: 10, parts: .object)]
        let shapes = Self.run(records, 20, 19)
        #expect(shapes.count == 3)
        #expect(shapes.first.map { Shape($0.kind, $0.from, $0.to) } == Shape(.delete, 10, -1))
        #expect(
            shapes.dropFirst().map { Shape($0.kind, $0.from, -1, $0.parts) } == [
                Shape(.update, 11, -1, [.object, .dependency]), Shape(.update, 12, -1, .dependency),
            ])
    }

    @Test("4: inserting a row redraws the row below it")
    func dependency4() {
        let shapes = Self.run([L.insert("key0", at: 10)], 20, 21)
        #expect(Self.updateParts(shapes) == [Shape(.insert, -1, 10), Shape(.update, 10, 11, .dependency)])
    }

    @Test("5 and 7: an insert at the end, or at the top with the dependency below, redraws nothing")
    func dependencyNone() {
        #expect(Self.positions(Self.run([L.insert("key0", at: 20)], 20, 21)) == [Shape(.insert, -1, 20)])
        #expect(Self.positions(Self.run([L.insert("key0", at: 0)], offset: 1, 20, 21)) == [Shape(.insert, -1, 0)])
    }

    @Test("6: with the dependency below, an insert at the end redraws the row above it")
    func dependency6() {
        let shapes = Self.run([L.insert("key0", at: 20)], offset: 1, 20, 21)
        #expect(
            Self.updateParts(shapes) == [
                Shape(.insert, -1, 20), Shape(.update, 19, 19, .dependency),
            ])
    }

    @Test("8: deletes and a move redraw each row whose upper neighbour changed")
    func dependency8() {
        let records = [L.delete("key0", at: 10), L.delete("key1", at: 10), L.insert("key1", at: 14)]
        let shapes = Self.run(records, 20, 19)
        #expect(
            Self.updateParts(shapes) == [
                Shape(.delete, 10, -1), Shape(.move, 11, 14), Shape(.update, 12, 10, .dependency),
                Shape(.update, 16, 15, .dependency),
            ])
    }

    @Test(
        "9-10: moving the first row to the end redraws the new first row",
        arguments: [
            nil,
            ViewRangeOptions.flexible(length: 50, offset: 0, from: .end).map {
                var options = $0
                options.maxLength = 150
                return options
            },
        ])
    func dependencyMove(range: ViewRangeOptions?) {
        let shapes = Self.run([L.delete("key0", at: 0), L.insert("key0", at: 2)], range: range, 3, 3)
        #expect(
            Self.updateParts(shapes) == [
                Shape(.move, 0, 2), Shape(.update, 1, 0, .dependency),
            ])
    }
}
