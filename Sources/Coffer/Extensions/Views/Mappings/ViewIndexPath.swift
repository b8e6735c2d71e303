/// A position in a list UI: a section and a row inside it.
///
/// Views speak in groups and indexes; a table or list speaks in sections and rows. `ViewMappings`
/// translates between the two, and the changes a reader applies to its UI carry these paths. It
/// is a plain value so that server code and every UI framework can use it alike.
public struct ViewIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section, counted from zero.
    public var section: Int
    /// The row inside the section, counted from zero.
    public var row: Int

    /// Creates the path of `row` in `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Orders by section, then by row: the order a list shows its rows in.
    public static func < (lhs: ViewIndexPath, rhs: ViewIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    /// The path as `[section, row]`, for test failures and logs.
    public var description: String { "[\(section), \(row)]" }
}
