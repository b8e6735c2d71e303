/// What an observed read depends on: rows, whole collections, extensions — the commits that can
/// change its result.
///
/// An observation (``Database/observe(_:fetch:)``) reads again only after a commit whose
/// ``Changeset`` touched its region. Name everything the read looks at: a read outside its region
/// does not see commits that change it.
///
/// ```swift
/// let region = DatabaseRegion.row(forKey: "n1", inCollection: "notes")
///     .union(.collection("tags"))
/// ```
public struct DatabaseRegion: Sendable, Hashable {
    var rows: Set<CollectionKey> = []
    var collections: Set<String> = []
    var extensions: Set<String> = []
    var isEverything = false

    /// The empty region: no commit changes it.
    public init() {}

    /// One row: a commit that set, replaced, touched or removed its object or metadata, or removed
    /// its collection or every collection.
    public static func row(forKey key: String, inCollection collection: String?) -> DatabaseRegion {
        var region = DatabaseRegion()
        region.rows.insert(CollectionKey(collection: collection ?? "", key: key))
        return region
    }

    /// Every row of a collection (its key list included).
    public static func collection(_ collection: String?) -> DatabaseRegion {
        var region = DatabaseRegion()
        region.collections.insert(collection ?? "")
        return region
    }

    /// What a registered extension (a ``SecondaryIndex``, a ``FullTextSearch``) derives: a commit
    /// that changed a row in one of the collections it covers (its `allowedCollections`), or
    /// reported changes of its own; for any other extension, or a name not registered, any commit
    /// that changed a row.
    public static func `extension`(_ name: String) -> DatabaseRegion {
        var region = DatabaseRegion()
        region.extensions.insert(name)
        return region
    }

    /// Every commit that changed something.
    public static var everything: DatabaseRegion {
        var region = DatabaseRegion()
        region.isEverything = true
        return region
    }

    /// This region and `other` together.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        var union = self
        union.rows.formUnion(other.rows)
        union.collections.formUnion(other.collections)
        union.extensions.formUnion(other.extensions)
        union.isEverything = isEverything || other.isEverything
        return union
    }

    /// Whether the region is empty (no commit can change it).
    public var isEmpty: Bool {
        !isEverything && rows.isEmpty && collections.isEmpty && extensions.isEmpty
    }
}
