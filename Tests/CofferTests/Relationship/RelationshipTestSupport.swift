import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// A node for the relationship tests: each kind of edge YapDatabase's tests use, set by field.
struct TestNode: Codable, Sendable, Equatable, RelationshipNode {
    /// "child" edges that delete the child with the parent.
    var children: [String] = []
    /// A "parent" edge that deletes this node with its parent (the inverse form).
    var parent: String?
    /// A "retained" edge: the destination goes when its last retainer goes.
    var retained: String?
    /// A "member" edge: this node goes when its last group goes.
    var groups: [String] = []
    /// "file" edges to these paths with `fileRules`.
    var files: [String] = []
    var fileRules: Int = RelationshipEdge.Rules.deleteDestinationIfSourceDeleted.rawValue
    /// A "watch" edge that notifies both ends.
    var watching: String?
    /// What the node was told, as "name reason".
    var notes: [String] = []

    var relationshipEdges: [RelationshipEdge] {
        var edges = children.map {
            RelationshipEdge(
                name: "child", destination: .row(key: $0, inCollection: "nodes"),
                rules: .deleteDestinationIfSourceDeleted)
        }
        if let parent {
            edges.append(
                RelationshipEdge(
                    name: "parent", destination: .row(key: parent, inCollection: "nodes"),
                    rules: .deleteSourceIfDestinationDeleted))
        }
        if let retained {
            edges.append(
                RelationshipEdge(
                    name: "retained", destination: .row(key: retained, inCollection: "nodes"),
                    rules: .deleteDestinationIfAllSourcesDeleted))
        }
        for group in groups {
            edges.append(
                RelationshipEdge(
                    name: "member", destination: .row(key: group, inCollection: "nodes"),
                    rules: .deleteSourceIfAllDestinationsDeleted))
        }
        for file in files {
            edges.append(
                RelationshipEdge(
                    name: "file", destination: .file(URL(fileURLWithPath: file)),
                    rules: RelationshipEdge.Rules(rawValue: fileRules)))
        }
        if let watching {
            edges.append(
                RelationshipEdge(
                    name: "watch", destination: .row(key: watching, inCollection: "nodes"),
                    rules: [.notifyIfSourceDeleted, .notifyIfDestinationDeleted]))
        }
        return edges
    }

    func relationshipEdgeDeleted(_ edge: RelationshipEdge, reason: RelationshipEdge.Processing) -> (any Sendable)? {
        var updated = self
        updated.notes.append("\(edge.name) \(reason)")
        if reason == .destinationDeleted { updated.watching = nil }
        return updated
    }
}

/// The namespace of the relationship suites (`swift test --filter Relationship`).
enum RelationshipSuites {
    static let name = "relationship"

    /// A database with the node codec and `relationship` registered, and two connections.
    struct Fixture {
        let test: TestDatabase
        let relationship: Relationship
        let one: Connection
        let two: Connection
    }

    static func fixture(_ relationship: Relationship = Relationship()) throws -> Fixture {
        let test = try TestDatabase()
        test.database.registerCodable(TestNode.self, forCollection: "nodes")
        try test.database.register(relationship, withName: name)
        return Fixture(test: test, relationship: relationship, one: try test.connection(), two: try test.connection())
    }

    static func node(_ key: String) -> CollectionKey { CollectionKey(collection: "nodes", key: key) }
    static func row(_ key: String) -> RelationshipEdge.Destination { .row(node(key)) }

    static func edges(_ tx: ReadTransaction) throws -> RelationshipTransaction {
        try tx.extension(name, as: RelationshipTransaction.self)
    }

    /// The keys of `collection` that exist, sorted.
    static func keys(_ connection: Connection, _ collection: String = "nodes") throws -> [String] {
        try connection.read { tx in try tx.allKeys(inCollection: collection).sorted() }
    }

    /// Writes `nodes` in one transaction.
    static func save(_ connection: Connection, _ nodes: [String: TestNode]) throws {
        try connection.readWrite { tx in
            for (key, node) in nodes.sorted(by: { $0.key < $1.key }) {
                try tx.setObject(node, forKey: key, inCollection: "nodes")
            }
        }
    }
}
