/// Which preferences changed, as delivered by ``Preferences/changes`` and
/// ``Preferences/didChangeNotification``.
public struct PreferencesChange: Sendable, Hashable {
    /// The keys whose value changed (set, replaced or removed).
    public let keys: Set<String>
    /// Whether the change was committed by another writer of the same suite (another
    /// ``Preferences`` instance or a plain connection) rather than made through this instance.
    public let isExternal: Bool

    /// Creates a change record.
    public init(keys: Set<String>, isExternal: Bool) {
        self.keys = keys
        self.isExternal = isExternal
    }
}
