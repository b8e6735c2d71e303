public import Foundation

/// A named, directed edge from a row to another row or to a file, with the rules that delete or
/// notify one end when the other goes (YapDatabase's `YapDatabaseRelationshipEdge`).
///
/// A node (``RelationshipNode``) returns edges without a ``source``: the node is the source. An
/// edge added with ``RelationshipTransaction/addEdge(_:)`` names its source. Edges read back
/// from the extension name both ends.
public struct RelationshipEdge: Hashable, Sendable, CustomStringConvertible {
    /// The other end of an edge: a row, or a file the edge's rules may delete.
    public enum Destination: Hashable, Sendable, CustomStringConvertible {
        /// The row `key` in `collection`.
        case row(CollectionKey)
        /// A file, deleted after the commit of the transaction in which a delete rule fires.
        case file(URL)

        /// The row `key` in `collection` (nil meaning the default collection, "").
        public static func row(key: String, inCollection collection: String?) -> Destination {
            .row(CollectionKey(collection: collection ?? "", key: key))
        }

        /// The row or the file's path.
        public var description: String {
            switch self {
            case .row(let ck): ck.description
            case .file(let url): url.path
            }
        }

        /// The same destination, with a file URL in its standard form so that two spellings
        /// of one path compare equal.
        var normalized: Destination {
            switch self {
            case .row: self
            case .file(let url): .file(url.standardizedFileURL)
            }
        }
    }

    /// What happens to one end of an edge when the other end goes; combine them freely
    /// (YapDatabase's `YDB_NodeDeleteRules`, with the same bits).
    ///
    /// When several rules apply to the same event, the strongest wins: a rule over all
    /// sources or destinations, then the one-to-one delete rule, then the notification.
    public struct Rules: OptionSet, Hashable, Sendable {
        /// The raw bits, as YapDatabase stores them.
        public let rawValue: Int

        /// Rules from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Tell the destination node (``RelationshipNode/relationshipEdgeDeleted(_:reason:)``)
        /// when the source is deleted.
        public static let notifyIfSourceDeleted = Rules(rawValue: 1 << 0)
        /// Tell the source node when the destination is deleted.
        public static let notifyIfDestinationDeleted = Rules(rawValue: 1 << 1)
        /// Delete the source when the destination is deleted.
        public static let deleteSourceIfDestinationDeleted = Rules(rawValue: 1 << 2)
        /// Delete the destination (row or file) when the source is deleted.
        public static let deleteDestinationIfSourceDeleted = Rules(rawValue: 1 << 3)
        /// Delete the source when its last edge of this name loses its destination.
        public static let deleteSourceIfAllDestinationsDeleted = Rules(rawValue: 1 << 4)
        /// Delete the destination (row or file) when the last edge of this name to it loses its
        /// source: a retain count.
        public static let deleteDestinationIfAllSourcesDeleted = Rules(rawValue: 1 << 5)
    }

    /// How a removed edge is processed (``RelationshipTransaction/removeEdge(_:processing:)``),
    /// and why a node is told an edge went (``RelationshipNode/relationshipEdgeDeleted(_:reason:)``).
    public enum Processing: Sendable, Hashable {
        /// Only the edge goes; no rule runs.
        case edgeDeleted
        /// The rules run as if the source had been deleted.
        case sourceDeleted
        /// The rules run as if the destination had been deleted.
        case destinationDeleted
    }

    /// The edge's name: edges are counted and queried by it, and the "all sources" and "all
    /// destinations" rules count edges of the same name only.
    public var name: String
    /// The source row; nil in the edges a node returns (the node is the source).
    public var source: CollectionKey?
    /// The destination row or file.
    public var destination: Destination
    /// The delete and notify rules.
    public var rules: Rules
    /// Whether the edge was added with ``RelationshipTransaction/addEdge(_:)`` rather than
    /// returned by a node; set on edges read back from the extension.
    public internal(set) var isManual: Bool

    /// An edge from a node (the node returning it is the source).
    public init(name: String, destination: Destination, rules: Rules = []) {
        self.init(name: name, source: nil, destination: destination, rules: rules)
    }

    /// An edge from `source`, for ``RelationshipTransaction/addEdge(_:)``.
    public init(name: String, source: CollectionKey?, destination: Destination, rules: Rules = []) {
        self.name = name
        self.source = source
        self.destination = destination.normalized
        self.rules = rules
        self.isManual = false
    }

    /// `name: source → destination`.
    public var description: String {
        "\(name): \(source?.description ?? "?") → \(destination)"
    }
}
