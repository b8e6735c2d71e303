/// What one commit changed in a ``Relationship``: the edges it added and removed, delivered to
/// observers through ``Changeset/changes(for:as:)``.
///
/// An edge whose rules changed is listed as removed (with the old rules) and added (with the
/// new). An edge added and removed in the same transaction is in neither list.
public struct RelationshipChanges: Sendable, Hashable {
    /// The edges the commit added.
    public var addedEdges: [RelationshipEdge]
    /// The edges the commit removed.
    public var removedEdges: [RelationshipEdge]

    /// The changes of one commit.
    public init(addedEdges: [RelationshipEdge] = [], removedEdges: [RelationshipEdge] = []) {
        self.addedEdges = addedEdges
        self.removedEdges = removedEdges
    }

    /// Whether the commit changed no edge.
    public var isEmpty: Bool { addedEdges.isEmpty && removedEdges.isEmpty }
}
