import Foundation

extension Data {
    /// Bytes that `write` fills in place, in one uninitialized allocation handed to `Data`
    /// without a copy.
    ///
    /// For the per-row encode and decode paths: `Data(count:)` zero-fills first, and building
    /// the bytes elsewhere and copying them in costs a second pass. `write` must set all `count`
    /// bytes; when it throws, the buffer is freed.
    static func writtenInPlace(
        count: Int, _ write: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> Data {
        // At least one byte, so the allocation always has a base address.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
        do {
            try write(UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
        } catch {
            buffer.deallocate()
            throw error
        }
        guard count > 0, let base = buffer.baseAddress else {
            buffer.deallocate()
            return Data()
        }
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }
}
