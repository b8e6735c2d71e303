/// The SplitMix64 generator BENCHMARKS.md uses to draw the W3 keys, so every implementation reads the same keys.
struct SplitMix64: Sendable {
    private var state: UInt64

    /// Starts the sequence at `seed` (BENCHMARKS.md uses 42).
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64-bit output; all arithmetic wraps, as the reference definition requires.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The first `count` record indexes of the W3 read sequence over `recordCount` records (repeats allowed).
    /// - Complexity: O(`count`).
    static func readIndexes(count: Int, recordCount: Int, seed: UInt64 = 42) -> [Int] {
        var generator = SplitMix64(seed: seed)
        let modulus = UInt64(max(recordCount, 1))
        return (0..<count).map { _ in Int(generator.next() % modulus) }
    }
}
