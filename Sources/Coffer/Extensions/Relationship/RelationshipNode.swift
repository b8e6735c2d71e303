/// An object whose writes tell a ``Relationship`` its outgoing edges (YapDatabase's
/// `YapDatabaseRelationshipNode`).
///
/// Each time an adopting object is inserted or its object replaced, the extension asks it for
/// ``relationshipEdges`` and replaces the node's edges with them: an edge missing from the new
/// list is removed and its rules run as if the source had been deleted, so dropping a child from
/// the list deletes the child under ``RelationshipEdge/Rules/deleteDestinationIfSourceDeleted``.
/// Writing only the metadata keeps the edges.
///
/// The extension sees the object as written when the collection has a codec
/// (`registerCodable`); a collection stored as JSON without one hands extensions an
/// ``EncodedValue``, which is not a node.
public protocol RelationshipNode: Sendable {
    /// The edges from this node; their ``RelationshipEdge/source`` is ignored (it is this node).
    var relationshipEdges: [RelationshipEdge] { get }

    /// Called when a notify rule fires for `edge`; return a replacement object to store it in
    /// the same transaction (its edges are read again), or nil to keep the stored one.
    ///
    /// Runs inside the write transaction, before the commit, on the writer's queue.
    func relationshipEdgeDeleted(_ edge: RelationshipEdge, reason: RelationshipEdge.Processing) -> (any Sendable)?
}

extension RelationshipNode {
    /// Keeps the stored object.
    public func relationshipEdgeDeleted(_ edge: RelationshipEdge, reason: RelationshipEdge.Processing) -> (
        any Sendable
    )? {
        nil
    }
}
