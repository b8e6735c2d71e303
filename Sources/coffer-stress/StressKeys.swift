import Coffer
import Foundation

/// Reads the hex keys the parent passes in the environment.
enum StressKeys {
    /// The variable holding the database key.
    static let keyVariable = "COFFER_STRESS_KEY"
    /// The variable holding the key `rotate` alternates with.
    static let newKeyVariable = "COFFER_STRESS_NEW_KEY"

    /// The 32-byte key in `variable`.
    /// - Throws: ``StressError`` when it is missing or not 64 hex digits (the value is never echoed).
    static func key(_ variable: String) throws -> Data {
        guard let text = ProcessInfo.processInfo.environment[variable] else {
            throw StressError("\(variable) is not set")
        }
        guard let bytes = decodeHex(text), bytes.count == 32 else {
            throw StressError("\(variable) must hold 64 hex digits")
        }
        return bytes
    }

    /// The bytes of `text` read as hex, or nil when it is not hex.
    static func decodeHex(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A failure of the stress child, reported on standard error (never with key bytes).
struct StressError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Writes acknowledgement lines straight to file descriptor 1, so a line the parent can read was
/// written before the process went on (no buffer is lost to SIGKILL).
enum Acknowledge {
    /// The parent that started this child; every mode records it first thing.
    nonisolated(unsafe) private static var parent: pid_t = 0

    /// Records the parent, so ``line(_:)`` can notice it is gone.
    ///
    /// Call it before anything else.
    static func start() {
        parent = getppid()
    }

    /// Writes `line` and a newline; exits when the parent has died.
    ///
    /// A parent that dies without killing its child (a test process that crashed) would leave
    /// this loop writing forever: once the child is re-parented, it stops after its next line.
    static func line(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        if getppid() != parent { exit(0) }
    }
}

/// A small seeded generator, so a failing run can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
