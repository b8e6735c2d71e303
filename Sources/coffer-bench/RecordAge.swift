import CBaseline
import Foundation

/// Reads the `age` of a stored benchmark record without a JSON decoder, with the very C function the baseline uses,
/// so the raw workloads (W1r/W3r/W4r) do the same per-record work on both sides.
enum RecordAge {
    /// The `"age":` field of the record's JSON bytes, or nil when there is none.
    static func parse(_ data: Data) -> Int? {
        data.withUnsafeBytes(parse)
    }

    /// The `"age":` field of lent record bytes, or nil when there is none.
    static func parse(_ bytes: RawSpan) -> Int? {
        bytes.withUnsafeBytes(parse)
    }

    private static func parse(_ raw: UnsafeRawBufferPointer) -> Int? {
        guard let base = raw.baseAddress else { return nil }
        var age: Int64 = 0
        let found = cb_parse_age(base.assumingMemoryBound(to: UInt8.self), Int32(raw.count), &age)
        return found != 0 ? Int(age) : nil
    }
}
