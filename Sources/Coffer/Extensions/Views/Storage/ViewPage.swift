import Foundation

/// One page of a view group: up to ``maximumRowCount`` rowids in view order, stored as YapDatabase
/// stores them (packed little-endian 64-bit integers), so a page is one small blob.
struct ViewPage: Sendable, Equatable {
    /// The most rowids a page holds before it splits (YapDatabase's `YAP_DATABASE_VIEW_MAX_PAGE_SIZE`).
    static let maximumRowCount = 50

    /// The rowids, in view order.
    var rowids: [Int64]

    /// A page of `rowids`.
    init(_ rowids: [Int64] = []) {
        self.rowids = rowids
    }

    /// The page stored in `data`.
    /// - Throws: ``DatabaseError`` `.corrupt` when `data` is not a whole number of 8-byte rowids.
    init(decoding data: Data, view: String) throws {
        guard data.count.isMultiple(of: 8) else {
            throw DatabaseError(
                .corrupt, "a page of view \"\(view)\" is \(data.count) bytes, not a whole number of rowids")
        }
        var rowids: [Int64] = []
        rowids.reserveCapacity(data.count / 8)
        data.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: bytes.count, by: 8) {
                rowids.append(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
            }
        }
        self.rowids = rowids
    }

    /// The page as stored.
    var encoded: Data {
        var data = Data(count: rowids.count * 8)
        data.withUnsafeMutableBytes { bytes in
            for (position, rowid) in rowids.enumerated() {
                bytes.storeBytes(of: rowid.littleEndian, toByteOffset: position * 8, as: Int64.self)
            }
        }
        return data
    }

    /// Whether the page holds more rows than it may, and must split.
    var isOverfull: Bool { rowids.count > Self.maximumRowCount }

    /// Splits an overfull page in two halves: this page keeps the first, the returned page gets the second.
    mutating func splitOffSecondHalf() -> ViewPage {
        let middle = rowids.count / 2
        let second = ViewPage(Array(rowids[middle...]))
        rowids.removeSubrange(middle...)
        return second
    }
}
