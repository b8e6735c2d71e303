// TEMPORARY: replaced by the real LRU from the utilities branch at merge time.
public struct Cache<Key: Hashable, Value> {
    var dict: [Key: Value] = [:]
    public var countLimit: Int
    public init(countLimit: Int = 40) { self.countLimit = countLimit }
    public var count: Int { dict.count }
    public var isEmpty: Bool { dict.isEmpty }
    public mutating func value(forKey key: Key) -> Value? { dict[key] }
    public func peekValue(forKey key: Key) -> Value? { dict[key] }
    public func contains(_ key: Key) -> Bool { dict[key] != nil }
    public mutating func setValue(_ value: Value, forKey key: Key) {
        if countLimit > 0 && dict.count >= countLimit && dict[key] == nil, let k = dict.keys.first { dict[k] = nil }
        dict[key] = value
    }
    @discardableResult public mutating func removeValue(forKey key: Key) -> Value? { dict.removeValue(forKey: key) }
    public mutating func removeValues<S: Sequence>(forKeys keys: S) where S.Element == Key { for k in keys { dict[k] = nil } }
    public mutating func removeAll() { dict.removeAll() }
    public mutating func removeAll(where shouldRemove: (Key, Value) throws -> Bool) rethrows {
        for (k, v) in dict where try shouldRemove(k, v) { dict[k] = nil }
    }
    public func forEach(_ body: (Key, Value) throws -> Void) rethrows { for (k, v) in dict { try body(k, v) } }
    public var keys: [Key] { Array(dict.keys) }
}
