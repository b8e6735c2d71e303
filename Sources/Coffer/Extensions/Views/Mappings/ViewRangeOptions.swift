/// A window onto part of one group, such as "the newest 50 messages", that a `ViewMappings`
/// shows instead of the whole group.
///
/// A **fixed** range behaves like `LIMIT`/`OFFSET`: its length stays at the requested length
/// (shrinking only while the group has too few rows) and its offset never moves, so an insert
/// inside it pushes a row out at the far end, and the change processing reports that row's
/// delete. A **flexible** range grows and shrinks as rows are inserted into or deleted from it,
/// and its offset follows rows inserted or deleted between it and its pinned end; `maxLength`,
/// `minLength` and `growOptions` tune that.
///
/// The offset is measured from the end the range is pinned to: with 50 rows, length 10 and
/// offset 10, a range pinned to the beginning covers indexes 10...19 and one pinned to the end
/// covers 30...39.
public struct ViewRangeOptions: Hashable, Sendable {
    /// The end of the group a range's offset is measured from.
    public enum Pin: Hashable, Sendable {
        /// Offsets count from index zero.
        case beginning
        /// Offsets count back from the last index.
        case end

        /// The other end, which is where a pin lands when a reversed group is shown.
        var opposite: Pin { self == .beginning ? .end : .beginning }
    }

    /// Which inserts just outside a flexible range join it.
    ///
    /// An insert strictly inside the range always joins it and one beyond a neighbouring row
    /// never does; these options decide for an insert right at the range's edge. With
    /// `pinSide`, a row inserted between the range and its neighbour on the pinned side joins
    /// (a news list pinned to the beginning keeps showing new items arriving at the top); with
    /// `nonPinSide`, one inserted at the other edge does. An empty range behaves as if both
    /// were set.
    public struct GrowOptions: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: Int

        /// Creates options from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Inserts at the edge on the pinned side join the range.
        public static let pinSide = GrowOptions(rawValue: 1 << 0)
        /// Inserts at the edge away from the pin join the range.
        public static let nonPinSide = GrowOptions(rawValue: 1 << 1)
        /// Only inserts strictly inside the range join it.
        public static let inRangeOnly: GrowOptions = []
        /// Inserts at either edge join the range.
        public static let onBothSides: GrowOptions = [.pinSide, .nonPinSide]
    }

    /// The current length: the requested length until the mappings first see the group's count,
    /// then the length actually available, adjusted as changes are processed.
    public private(set) var length: Int
    /// The current distance of the range from its pinned end; a flexible range's offset moves
    /// as rows are inserted or deleted between it and that end.
    public private(set) var offset: Int
    /// The end the offset is measured from.
    public private(set) var pin: Pin
    /// Whether this is a fixed range (`false`: a flexible one).
    public let isFixedRange: Bool
    /// The largest length a flexible range may grow to.
    ///
    /// Rows beyond it fall off on the side away from the pin. A fixed range's is its requested
    /// length.
    private var storedMaxLength: Int
    /// The smallest length a flexible range keeps while the group has enough rows; zero for a
    /// fixed range.
    private var storedMinLength: Int

    /// Which inserts at the edges of a flexible range join it; ignored for a fixed range.
    public var growOptions: GrowOptions = .pinSide

    /// Whether this is a flexible range.
    public var isFlexibleRange: Bool { !isFixedRange }

    /// The largest length a flexible range may grow to (by default unbounded).
    ///
    /// Setting a value below `minLength` sets `minLength` instead; setting it on a fixed range
    /// does nothing, because a fixed range's maximum is its requested length.
    public var maxLength: Int {
        get { storedMaxLength }
        set {
            guard isFlexibleRange else { return }
            storedMaxLength = max(ViewLimits.clamp(newValue), storedMinLength)
        }
    }

    /// The smallest length a flexible range keeps while the group has the rows for it (by
    /// default zero): when deletes shrink the range below it, rows next to it are pulled in.
    ///
    /// Setting a value above `maxLength` sets `maxLength` instead; setting it on a fixed range
    /// does nothing.
    public var minLength: Int {
        get { storedMinLength }
        set {
            guard isFlexibleRange else { return }
            storedMinLength = min(ViewLimits.clamp(newValue), storedMaxLength)
        }
    }

    /// A fixed range of `length` rows, `offset` rows away from `pin`, or `nil` when `length`
    /// is not positive.
    ///
    /// The group need not hold `length` rows yet: the range shows what there is and grows up
    /// to `length` as rows arrive.
    public static func fixed(length: Int, offset: Int, from pin: Pin) -> ViewRangeOptions? {
        guard length > 0 else { return nil }
        return ViewRangeOptions(length: length, offset: offset, pin: pin, isFixedRange: true)
    }

    /// A flexible range starting at `length` rows, `offset` rows away from `pin`, or `nil` when
    /// `length` is not positive.
    public static func flexible(length: Int, offset: Int, from pin: Pin) -> ViewRangeOptions? {
        guard length > 0 else { return nil }
        return ViewRangeOptions(length: length, offset: offset, pin: pin, isFixedRange: false)
    }

    /// Creates a range; the factories reject a non-positive length first.
    private init(length: Int, offset: Int, pin: Pin, isFixedRange: Bool) {
        let length = ViewLimits.clamp(length)
        self.length = length
        self.offset = ViewLimits.clamp(offset)
        self.pin = pin
        self.isFixedRange = isFixedRange
        storedMaxLength = isFixedRange ? length : ViewLimits.maximum
        storedMinLength = 0
    }

    /// A copy with another current length and offset, as the mappings and the change
    /// processing compute them.
    func with(length: Int, offset: Int) -> ViewRangeOptions {
        var copy = self
        copy.length = ViewLimits.clamp(length)
        copy.offset = ViewLimits.clamp(offset)
        return copy
    }

    /// A copy with another current length.
    func with(length: Int) -> ViewRangeOptions {
        with(length: length, offset: offset)
    }

    /// A copy pinned to the other end: how a range on a reversed group is kept internally,
    /// since the UI's beginning is the group's end.
    func reversed() -> ViewRangeOptions {
        var copy = self
        copy.pin = pin.opposite
        return copy
    }
}
