import Foundation

/// How hard the reliability tests push: CI figures by default, more with `STRESS=1`.
enum StressSettings {
    /// Whether `STRESS=1` (or any non-empty value other than 0) asked for the long runs.
    static let isStress: Bool = {
        guard let value = ProcessInfo.processInfo.environment["STRESS"] else { return false }
        return !value.isEmpty && value != "0"
    }()

    /// The kill count for a crash test: `ci` normally, `stress` under `STRESS=1`.
    static func kills(ci: Int, stress: Int) -> Int { isStress ? stress : ci }

    /// How long a concurrency test runs.
    static var concurrencyDuration: Duration { isStress ? .seconds(60) : .seconds(5) }

    /// The seed for this run: `STRESS_SEED` when given (to replay a failure), else random.
    static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["STRESS_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1...UInt64.max)
    }

    /// 64 hex digits of `key`, for the child's environment.
    static func hex(_ key: Data) -> String {
        key.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}

/// The ledger the writer child keeps (mirrors `LedgerSchema` in coffer-stress).
enum Ledger {
    static let accounts = "accounts"
    static let meta = "meta"
    static let counterKey = "counter"
    static let accountCount = 10
    static let total: Int64 = 10_000
    static func accountKey(_ index: Int) -> String { "a\(index)" }
}
