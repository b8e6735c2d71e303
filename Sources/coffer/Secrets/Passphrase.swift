import Foundation

/// Passphrase bytes kept in one array that is overwritten when released.
///
/// Swift may copy arrays and `Data`, so wiping is best effort; what matters more is that the
/// bytes never reach an argument list, an error message or a log. Library APIs that take
/// `Data` get a short-lived copy from ``withData(_:)``.
final class Passphrase {
    private var bytes: [UInt8]

    /// Takes ownership of `bytes`.
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    deinit {
        wipe()
    }

    /// Whether the passphrase is empty (never accepted).
    var isEmpty: Bool { bytes.isEmpty }

    /// Whether both passphrases hold the same bytes.
    func matches(_ other: Passphrase) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var difference: UInt8 = 0
        for index in bytes.indices { difference |= bytes[index] ^ other.bytes[index] }
        return difference == 0
    }

    /// Calls `body` with the bytes.
    func withBytes<Result>(_ body: ([UInt8]) throws -> Result) rethrows -> Result {
        try body(bytes)
    }

    /// Calls `body` with a `Data` copy of the bytes, wiped afterwards.
    func withData<Result>(_ body: (Data) throws -> Result) rethrows -> Result {
        var data = Data(bytes)
        defer { data.resetBytes(in: 0..<data.count) }
        return try body(data)
    }

    /// Overwrites the bytes with zeros.
    func wipe() {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
