import Crypto
public import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A 256-bit database data key held in memory that is wiped when the key is released.
///
/// A key file wraps one `DataKey`; SQLCipher uses it as a raw key, so opening a database costs
/// no key derivation. The bytes live in a single buffer allocated once, never copied into
/// Swift arrays by this type, reachable only inside ``withUnsafeBytes(_:)``, and overwritten with
/// zeros in `deinit`. The description never shows them.
///
/// ```swift
/// let key = try keyFile.unwrap(passphrase: passphraseBytes)
/// options.key = .raw(key.withUnsafeBytes { Data($0) })
/// ```
public final class DataKey: @unchecked Sendable, Equatable, CustomStringConvertible {
    // Safety: the buffer is written only in `init` and in `deinit`; between the two it is
    // read-only, so sharing the instance across threads cannot race.

    /// The size of every data key, in bytes.
    public static let byteCount = 32

    private let storage: UnsafeMutableRawBufferPointer

    /// Creates a key by copying exactly ``byteCount`` bytes.
    ///
    /// - Throws: ``KeyFileError`` with code `invalidArgument` when `bytes` is not 32 bytes long.
    public convenience init(bytes: some DataProtocol) throws(KeyFileError) {
        guard bytes.count == Self.byteCount else {
            throw KeyFileError(.invalidArgument, reason: "a data key must be \(Self.byteCount) bytes")
        }
        self.init { buffer in
            buffer.copyBytes(from: bytes)
        }
    }

    /// Creates a fresh key from the system's cryptographically secure random source.
    ///
    /// - Complexity: One read of 32 random bytes.
    public static func random() -> DataKey {
        // SymmetricKey draws from BoringSSL's RAND_bytes and wipes its own copy when released.
        let source = SymmetricKey(size: .bits256)
        return DataKey { buffer in
            source.withUnsafeBytes { buffer.copyBytes(from: $0) }
        }
    }

    /// Allocates the buffer and lets `fill` write all of it.
    init(filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        storage = .allocate(byteCount: Self.byteCount, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        fill(storage)
    }

    deinit {
        wipeSecret(storage)
        storage.deallocate()
    }

    /// Calls `body` with the key bytes; the pointer must not escape the closure.
    ///
    /// - Throws: Whatever `body` throws.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Compares two keys in time that does not depend on where they differ.
    public static func == (lhs: DataKey, rhs: DataKey) -> Bool {
        var difference: UInt8 = 0
        for i in 0..<byteCount {
            difference |= lhs.storage[i] ^ rhs.storage[i]
        }
        return difference == 0
    }

    /// `DataKey(32 bytes)`: the bytes are never shown.
    public var description: String { "DataKey(\(Self.byteCount) bytes)" }
}

/// Overwrites `buffer` with zeros in a way the optimizer may not drop as a dead store.
func wipeSecret(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    #if canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
    #elseif canImport(Glibc) || canImport(Musl)
        explicit_bzero(base, buffer.count)
    #else
        // Best effort where no guaranteed-wipe primitive is known.
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    #endif
}

/// Overwrites the bytes of `array` with zeros.
func wipeSecret(_ array: inout [UInt8]) {
    array.withUnsafeMutableBytes { wipeSecret($0) }
}

/// Overwrites the bytes of `data` with zeros.
func wipeSecret(_ data: inout Data) {
    data.withUnsafeMutableBytes { wipeSecret($0) }
}
