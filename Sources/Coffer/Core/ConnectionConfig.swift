/// Cache settings a new ``Connection`` starts with (see ``Database/connectionDefaults``).
public struct ConnectionConfig: Sendable, Hashable {
    /// Whether deserialized objects are cached per connection.
    public var objectCacheEnabled = true
    /// The object cache's entry limit (0 = unlimited).
    public var objectCacheLimit = 250
    /// Whether deserialized metadata is cached per connection.
    public var metadataCacheEnabled = true
    /// The metadata cache's entry limit (0 = unlimited).
    public var metadataCacheLimit = 250

    /// Creates the default configuration: both caches on, 250 entries each.
    public init() {}

    /// Creates a configuration with the given cache settings.
    public init(
        objectCacheEnabled: Bool = true, objectCacheLimit: Int = 250,
        metadataCacheEnabled: Bool = true, metadataCacheLimit: Int = 250
    ) {
        self.objectCacheEnabled = objectCacheEnabled
        self.objectCacheLimit = objectCacheLimit
        self.metadataCacheEnabled = metadataCacheEnabled
        self.metadataCacheLimit = metadataCacheLimit
    }
}
