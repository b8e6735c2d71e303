import Foundation

/// Bytes of key material that are wiped from memory when the last reference goes away.
///
/// Immutable after creation. Swift cannot promise that no other copy exists (a `Data` the
/// bytes came from, a register), but the copy Coffer keeps for the life of a database is
/// zeroed on release.
final class SecretBytes: @unchecked Sendable {
    // Safety: `storage` is written only in `init` and `deinit`; every other access reads it.
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a private buffer.
    init<Bytes: DataProtocol>(copying bytes: Bytes) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.copyBytes(to: storage)
        count = bytes.count
    }

    /// Allocates `count` bytes and lets `fill` write them.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.count = count
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
        } catch {
            SecretBytes.wipe(storage)
            storage.deallocate()
            throw error
        }
    }

    /// The number of secret bytes.
    let count: Int

    deinit {
        SecretBytes.wipe(storage)
        storage.deallocate()
    }

    /// Gives `body` read access to the bytes; the pointer must not escape.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Overwrites a buffer with zeros in a way the optimizer does not remove.
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // memset through a volatile-like opaque call: the optimizer cannot prove the memory dead.
        withExtendedLifetime(buffer) {
            _ = memset(base, 0, buffer.count)
        }
    }

    /// Zeroes a `Data` or array buffer in place (best effort: earlier copies may remain).
    static func wipe(_ data: inout Data) {
        data.withUnsafeMutableBytes { wipe($0) }
    }

    /// Zeroes a byte array in place.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
