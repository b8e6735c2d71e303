extension CollectionKey {
    /// The hash `Dictionary` and `Set` place a pair by: the key's UTF-8 bytes under
    /// ``TableHash``, a keyed polynomial hash, instead of `Hasher`'s SipHash.
    ///
    /// Every cache lookup hashes one key, and SipHash's setup, rounds and finalization cost more
    /// than the rest of the lookup together (BENCHMARKS.md, "Hot paths"). Like ``hash(into:)`` it hashes the key only, so
    /// equal pairs hash equally. `seed` is the table's own seed, which moves the evaluation point,
    /// so that tables of different sizes do not share an ordering.
    public func _rawHashValue(seed: Int) -> Int {
        let point = TableHash.point(seed: seed)
        let hashed: UInt64? = key.utf8.withContiguousStorageIfAvailable {
            TableHash.hash(UnsafeRawBufferPointer($0), at: point)
        }
        let value = hashed ?? Array(key.utf8).withUnsafeBytes { TableHash.hash($0, at: point) }
        return Int(truncatingIfNeeded: value)
    }
}

/// A polynomial hash over the field of integers modulo the prime 2⁶¹ − 1, evaluated at a point
/// drawn at random once per process, then mixed (``mix(_:)``) so that a table's low bits spread.
///
/// Why it may stand in for SipHash in hash tables: the bytes are split into 7-byte words (each
/// below the prime), prefixed by their count, and taken as the coefficients of a polynomial with
/// no constant term; two different byte strings give two different polynomials, and the
/// difference of their hashes minus any given amount is a nonzero polynomial of degree at most
/// d = 2 + ⌈count / 7⌉, with at most d roots. So for any two strings chosen without knowing the
/// point, the chance that their hashes differ by any given amount is at most d / (2⁶¹ − 1), and
/// the chance that they land in the same one of 2ᵇ buckets (the low b bits of the hash) at most
/// about 2d / 2ᵇ: keys picked in advance to collide collide no more than 2d times as often as
/// random ones. The point is secret (the system's random generator, never stored or shown), and
/// no key's hash leaves the process. What it does not withstand, and SipHash does, is an attacker
/// who can watch lookups of keys of their choosing and learn from their timing which ones
/// collided; a hash table's keys here are the application's rows in its own process, which such
/// an attacker would have to be inside already.
enum TableHash {
    /// 2⁶¹ − 1, a Mersenne prime: reducing modulo it is a shift, a mask and an addition.
    static let prime: UInt64 = (1 << 61) - 1
    /// This process's evaluation point, uniform in 1 ..< prime.
    static let secretPoint = UInt64.random(in: 1..<prime)

    /// The point for a table with `seed`: the secret point moved by the seed, still uniform and
    /// secret, never zero (a polynomial evaluated at zero is its last coefficient only).
    @inline(__always)
    static func point(seed: Int) -> UInt64 {
        let moved = reduce(secretPoint &+ reduce(UInt64(bitPattern: Int64(seed))))
        return moved == 0 ? 1 : moved
    }

    /// The polynomial of `bytes` at `point`, in 0 ..< prime.
    static func hash(_ bytes: UnsafeRawBufferPointer, at point: UInt64) -> UInt64 {
        let count = bytes.count
        var hash = reduce(UInt64(truncatingIfNeeded: count))
        var offset = 0
        // Whole 8-byte loads while 8 bytes remain, of which the low 7 make the word.
        while count - offset >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = add(multiply(hash, point), word & 0x00FF_FFFF_FFFF_FFFF)
            offset += 7
        }
        let remaining = count - offset
        if remaining > 0 {
            var word: UInt64 = 0
            if count >= 8 {
                // The last 8 bytes, shifted so that only the `remaining` not yet hashed are left.
                let last = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                word = last >> UInt64(8 * (8 - remaining))
            } else {
                for index in 0..<remaining { word |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
            }
            hash = add(multiply(hash, point), word)
        }
        // Once more by the point, so that no word is added last unmultiplied: two strings that
        // differed only in their last word would otherwise differ by a known amount whatever the
        // point, and such keys (numbered ones) fill the same few buckets.
        return mix(multiply(hash, point))
    }

    /// Spreads a polynomial's value over all 64 bits, with MurmurHash3's 64-bit finalizer.
    ///
    /// A bijection, so equal polynomials stay the only equal hashes. A table takes the low bits; those of the bare polynomial are a linear function of the key's words
    /// modulo the prime, and for keys that differ in a few digits some points put them into
    /// far fewer buckets than a random function would (9,291 of 32,768 buckets for 20,000
    /// numbered keys at one point in 60, against about 14,975).
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    /// `value` modulo the prime, for any `value` (2⁶¹ ≡ 1).
    @inline(__always)
    static func reduce(_ value: UInt64) -> UInt64 {
        let folded = (value & prime) &+ (value >> 61)
        return folded >= prime ? folded &- prime : folded
    }

    /// `a · b` modulo the prime, for `a`, `b` below it.
    @inline(__always)
    static func multiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        // a · b = high · 2⁶⁴ + low, and 2⁶⁴ ≡ 8: below 2⁶² here, since high < 2⁵⁸.
        return reduce((low & prime) &+ (low >> 61) &+ (high << 3))
    }

    /// `a + word` modulo the prime, for `a` below it and `word` below 2⁵⁶.
    @inline(__always)
    static func add(_ a: UInt64, _ word: UInt64) -> UInt64 {
        let sum = a &+ word
        return sum >= prime ? sum &- prime : sum
    }
}
