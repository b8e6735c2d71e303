public import Foundation

/// Named, directed edges between rows, or from a row to a file, with rules that delete or
/// notify one end when the other goes (YapDatabase's `YapDatabaseRelationship`): the database's
/// garbage collector.
///
/// ```swift
/// struct Note: Codable, RelationshipNode {
///     var attachments: [URL]
///     var relationshipEdges: [RelationshipEdge] {
///         attachments.map { RelationshipEdge(name: "attachment", destination: .file($0),
///                                            rules: .deleteDestinationIfSourceDeleted) }
///     }
/// }
/// let relationship = Relationship()
/// try database.register(relationship, withName: "relationship")
/// ```
///
/// Edges come from nodes (``RelationshipNode``, replaced on each write of the node) or are added
/// and removed by hand (``RelationshipTransaction/addEdge(_:)``). Their rules run before the
/// transaction commits, to a fixed point: a cascade through any number of levels, or around a
/// cycle, finishes in the transaction that started it. An edge whose source or destination row
/// does not exist then is dropped without running its rules. Files are deleted after the commit,
/// off the writer's thread, and never after a rollback; the deletions a commit owes are recorded
/// in the same commit, so after a crash the next registration finishes them.
///
/// The extension is persistent only, as YapDatabase's is: edges live in the table
/// `Relationship_<name>`, pending file deletions in `Relationship_<name>_files`.
public struct Relationship: DatabaseExtension {
    /// The collections whose objects are asked for their edges; manual edges and destinations
    /// may be in any collection.
    public var allowedCollections: AllowList<String>
    /// Whether objects adopting ``RelationshipNode`` are asked for their edges (YapDatabase's
    /// `disableYapDatabaseRelationshipNodeProtocol`, inverted); without it only manual edges exist.
    public var readsNodeEdges: Bool
    /// A tag for what the nodes return: changing it replaces every node's edges with the ones its
    /// stored object returns now, at the next registration, keeping the manual edges (YapDatabase's
    /// `versionTag`).
    public var nodeEdgesVersion: String
    /// How file destinations are stored in the table.
    public var fileSerializer: FileSerializer
    /// Deletes files after commits; shared by every registration of this value.
    let fileDeleter: RelationshipFileDeleter

    /// A relationship extension; node edges are read from every collection by default.
    public init(
        allowedCollections: AllowList<String> = .all, readsNodeEdges: Bool = true, nodeEdgesVersion: String = "",
        fileSerializer: FileSerializer = .path
    ) {
        self.allowedCollections = allowedCollections
        self.readsNodeEdges = readsNodeEdges
        self.nodeEdgesVersion = nodeEdgesVersion
        self.fileSerializer = fileSerializer
        self.fileDeleter = RelationshipFileDeleter()
    }

    /// Waits until every file deletion this extension's commits have handed over so far is done.
    ///
    /// Deletions run on a background queue after each commit; call this to know they finished
    /// (in tests, before closing an app's last window, …).
    public func waitForFileDeletions() async {
        await fileDeleter.drain()
    }

    /// How a file destination's URL is written to the table and read back.
    ///
    /// The table lives in the SQLCipher file, encrypted with every other page; a serializer can
    /// encrypt the path again (with a key of the app's), or store a path relative to a container
    /// that moves between launches. It must decode what it encoded; changing it makes the stored
    /// file destinations unreadable, which fails the queries that decode them.
    public struct FileSerializer: Sendable {
        /// Turns a file URL into the bytes stored.
        public var encode: @Sendable (URL) throws -> Data
        /// Turns the stored bytes back into the file URL.
        public var decode: @Sendable (Data) throws -> URL

        /// A serializer from its two closures.
        public init(encode: @escaping @Sendable (URL) throws -> Data, decode: @escaping @Sendable (Data) throws -> URL)
        {
            self.encode = encode
            self.decode = decode
        }

        /// The file's path as UTF-8 (no bookmark data, which Linux does not have).
        public static let path = FileSerializer(
            encode: { Data($0.standardizedFileURL.path.utf8) },
            decode: { data in
                guard let path = String(data: data, encoding: .utf8) else {
                    throw DatabaseError(.serialization, "a stored relationship file path is not UTF-8")
                }
                return URL(fileURLWithPath: path)
            })
    }
}

extension Relationship {
    /// "Relationship".
    public var kind: String { "Relationship" }

    /// The edge table and the table of file deletions a commit owes.
    public func tableNames(registeredName: String) -> [String] {
        let table = defaultTableName(registeredName: registeredName)
        return [table, table + "_files"]
    }

    /// Makes the state of one connection.
    public func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        RelationshipConnectionState(relationship: self, registration: registration)
    }
}

/// A relationship's state on one connection: it keeps no caches (queries read the table at the
/// transaction's snapshot), so other connections' commits need no work here.
final class RelationshipConnectionState: ExtensionConnectionState {
    typealias Changes = RelationshipChanges

    let relationship: Relationship
    let sql: RelationshipSQL

    init(relationship: Relationship, registration: ExtensionRegistration) {
        self.relationship = relationship
        self.sql = RelationshipSQL(tables: registration.tableNames)
    }

    func makeTransaction(_ context: ExtensionContext) -> any ExtensionTransaction {
        RelationshipMaintainer(context: context, relationship: relationship, sql: sql)
    }
}
