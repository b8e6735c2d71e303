/// One row a fixture is written with.
struct FixtureRow: Sendable {
    var collection: String
    var key: String
    var object: any Sendable
    var metadata: (any Sendable)?

    /// A row; `metadata` nil stores none.
    init(_ collection: String, _ key: String, _ object: any Sendable, metadata: (any Sendable)? = nil) {
        self.collection = collection
        self.key = key
        self.object = object
        self.metadata = metadata
    }

    /// Orders rows as the manifest lists them: by collection, then key.
    static func manifestOrder(_ lhs: (String, String), _ rhs: (String, String)) -> Bool {
        lhs.0 == rhs.0 ? lhs.1 < rhs.1 : lhs.0 < rhs.0
    }
}
