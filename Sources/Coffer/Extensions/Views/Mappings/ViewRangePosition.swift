/// Where a group's visible range sits inside the whole group: how many rows lie before it, how
/// many after it, and how many it shows.
///
/// A UI uses it to decide whether to offer "load more" at either end. For a reversed group the
/// two offsets are swapped, so "beginning" is the top of the UI.
public struct ViewRangePosition: Hashable, Sendable {
    /// The number of rows between the start of the group and the range.
    public var offsetFromBeginning: Int
    /// The number of rows between the range and the end of the group.
    public var offsetFromEnd: Int
    /// The number of rows the range shows.
    public var length: Int

    /// Creates a position from its three parts.
    public init(offsetFromBeginning: Int, offsetFromEnd: Int, length: Int) {
        self.offsetFromBeginning = offsetFromBeginning
        self.offsetFromEnd = offsetFromEnd
        self.length = length
    }
}
