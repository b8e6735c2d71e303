/// Which parts of a row a change touched, so a UI can skip redrawing what did not change.
public struct ViewChangedParts: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: Int

    /// Creates parts from their raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The row's object changed.
    public static let object = ViewChangedParts(rawValue: 1 << 0)
    /// The row's metadata changed.
    public static let metadata = ViewChangedParts(rawValue: 1 << 1)
    /// A neighbouring row the row's drawing depends on changed (see
    /// `ViewMappings.setCellDrawingDependencyOffsets(_:forGroup:)`).
    public static let dependency = ViewChangedParts(rawValue: 1 << 2)
}
