/// Counters that tell how well a ``Cache`` or ``BidirectionalCache`` is serving its lookups.
///
/// Use them to size a cache: many evictions with many misses mean the limit is below the working set.
public struct CacheStatistics: Sendable, Hashable {
    /// The number of lookups that found an entry (peeks are not counted).
    public var hitCount: Int
    /// The number of lookups that found nothing (peeks are not counted).
    public var missCount: Int
    /// The number of entries dropped to stay within the count limit (explicit removals are not counted).
    public var evictionCount: Int

    /// Creates statistics with the given counts, all zero by default.
    public init(hitCount: Int = 0, missCount: Int = 0, evictionCount: Int = 0) {
        self.hitCount = hitCount
        self.missCount = missCount
        self.evictionCount = evictionCount
    }

    /// The share of lookups that were hits, from 0 to 1, or 0 before the first lookup.
    public var hitRatio: Double {
        let lookups = hitCount + missCount
        return lookups == 0 ? 0 : Double(hitCount) / Double(lookups)
    }
}
