import Foundation

extension Data {
    /// Appends an integer in little-endian byte order, the order of every integer in a blob.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Reads a little-endian `UInt32` that fills the whole buffer, or `nil` when it is not
    /// exactly four bytes long.
    func littleEndianUInt32() -> UInt32? {
        guard count == 4 else { return nil }
        // One unaligned load: this runs for every encrypted blob read (its key id).
        return UInt32(littleEndian: withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
    }
}
