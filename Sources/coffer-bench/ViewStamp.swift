import Coffer
import Foundation

/// The metadata of a view workload's row: its group among ten and its timestamp, stored in 16 bytes.
///
/// The view workloads group and sort by metadata, as YapDatabase advises, so a comparison decodes
/// 16 bytes rather than a 250-byte JSON record.
struct ViewStamp: Sendable, Equatable {
    /// The row's group, 0 ..< `groupCount`.
    var group: Int
    /// The row's timestamp; the view sorts a group by it.
    var time: Double

    /// How many groups the view workloads spread their rows over.
    static let groupCount = 10
    /// The group names, made once so the grouping handler does not format a string per row.
    static let groupNames = (0..<groupCount).map { "g\($0)" }

    /// The stamp of record `index`: group `index % 10`; a timestamp that increases with `index`
    /// when `appending`, else one drawn from `index` with SplitMix64, in no relation to the key order.
    static func of(index: Int, appending: Bool) -> ViewStamp {
        var generator = SplitMix64(seed: UInt64(index))
        // 40 bits, so every value is exact in a Double and distinct stamps rarely tie.
        let time = appending ? Double(index) : Double(generator.next() >> 24)
        return ViewStamp(group: index % groupCount, time: time)
    }

    /// The metadata chain: the group and the time's bits, little-endian.
    static let chain = SerializerChain(
        codec: .custom(
            ViewStamp.self, name: "stamp",
            encode: { stamp in
                let words = (UInt64(stamp.group).littleEndian, stamp.time.bitPattern.littleEndian)
                return withUnsafeBytes(of: words) { Data($0) }
            },
            decode: { data in
                guard data.count == 16 else { throw BenchError(.checkMismatch, "a stamp of \(data.count) bytes") }
                return data.withUnsafeBytes { raw in
                    ViewStamp(
                        group: Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))),
                        time: Double(
                            bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))))
                }
            }),
        role: .metadata)

    /// Ascending by `time`.
    static func compare(_ left: Double, _ right: Double) -> ComparisonResult {
        left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    }
}
