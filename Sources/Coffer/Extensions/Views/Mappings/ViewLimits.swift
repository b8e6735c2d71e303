/// Bounds that keep every index, count and range length of the view logic far from `Int.max`,
/// so that the sums and offsets the change processing computes cannot overflow whatever a caller
/// passes in.
enum ViewLimits {
    /// The largest index, count, offset or length the mappings and the change processing accept;
    /// larger inputs are clamped to it (or, for raw change records, ignored).
    static let maximum = 1 << 48

    /// `value` clamped to `0...maximum`.
    static func clamp(_ value: Int) -> Int {
        min(max(value, 0), maximum)
    }
}
