import CBaseline

extension PackedStrings {
    /// Calls `body` with a `cb_packed` view of the strings, valid only inside `body`.
    func withUnsafeCPacked<R>(_ body: (UnsafePointer<cb_packed>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { bytes in
            try offsets.withUnsafeBufferPointer { offsets in
                let packed = cb_packed(bytes: bytes.baseAddress, offsets: offsets.baseAddress, count: Int32(count))
                return try withUnsafePointer(to: packed) { try body($0) }
            }
        }
    }
}
