/// A section a list UI inserts or deletes to go from one snapshot of a view to the next.
public struct ViewSectionChange: Hashable, Sendable, CustomStringConvertible {
    /// Whether the section appears or disappears.
    public enum Kind: Hashable, Sendable {
        /// The section appears (at `section` of the new snapshot).
        case insert
        /// The section disappears (from `section` of the old snapshot).
        case delete
    }

    /// Whether the section appears or disappears.
    public var kind: Kind
    /// The group shown as the section (the folded section's name while groups are folded).
    public var group: String
    /// For an insert, the section in the new snapshot; for a delete, in the old one.
    public var section: Int

    /// Creates a section change.
    public init(kind: Kind, group: String, section: Int) {
        self.kind = kind
        self.group = group
        self.section = section
    }

    /// The change as `insert section 1 (B)`, for test failures and logs.
    public var description: String {
        "\(kind == .insert ? "insert" : "delete") section \(section) (\(group))"
    }
}
