import Coffer
import Foundation

/// The W1 record as a relationship node: one "previous" edge to the record before it (record 0
/// points at record 1, which the extension resolves when record 1 is inserted). Only this
/// suite registers a Relationship, so the conformance costs the other suites nothing.
extension User: RelationshipNode {
    var relationshipEdges: [RelationshipEdge] {
        let index = Int(id.dropFirst(5)) ?? 0
        let other = User.key(index: index == 0 ? 1 : index - 1)
        return [
            RelationshipEdge(
                name: "previous", destination: .row(key: other, inCollection: Records.collection),
                rules: .notifyIfDestinationDeleted)
        ]
    }
}

/// Relationship workloads: W1l is W1 with a Relationship registered and every record a node with
/// one edge (issue 23: ≤ 2× Coffer's W1, `vs_coffer_w1`); R1 removes the root of a binary tree of
/// `R1.nodes` nodes whose "child" edges delete the children, so the whole tree goes in that one
/// transaction (≤ 1 s in release).
struct CofferRelationshipSuite: BenchmarkSuite {
    /// A node of R1's tree.
    struct TreeNode: Codable, Sendable, RelationshipNode {
        var children: [String]
        var relationshipEdges: [RelationshipEdge] {
            children.map {
                RelationshipEdge(
                    name: "child", destination: .row(key: $0, inCollection: CofferRelationshipSuite.treeCollection),
                    rules: .deleteDestinationIfSourceDeleted)
            }
        }
    }

    static let treeCollection = "tree"
    static let treeNodes = 10_000

    let implementation = "CofferRel"
    let workloads = [WorkloadInfo("W1l", baseline: "W1"), WorkloadInfo("R1")]

    func run(selected: Set<String>, context: SuiteContext) throws -> SuiteReport {
        var report = SuiteReport()
        report.notes = [
            (key: "w1l", value: "W1 records as nodes, one notify edge each to the previous record"),
            (
                key: "r1",
                value: "remove the root of a binary tree of \(Self.treeNodes) nodes, deleteDestinationIfSourceDeleted"
            ),
        ]
        if selected.contains("W1l") { report.results.append(try runInserts(context: context)) }
        if selected.contains("R1") { report.results.append(try runCascade(context: context)) }
        return report
    }

    private func runInserts(context: SuiteContext) throws -> WorkloadResult {
        let url = context.directory.appendingPathComponent("relationship-w1l.sqlite")
        let users = context.records.users
        var result: WorkloadResult?
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            try database.register(Relationship(allowedCollections: .only([Records.collection])), withName: "rel")
            let connection = try database.newConnection(config: CofferStore.uncached)
            let insert = try Stopwatch.measure {
                try connection.readWrite { tx in
                    for user in users { try tx.setObject(user, forKey: user.id, inCollection: Records.collection) }
                }
            }
            let edges = try connection.read { tx in
                try tx.extension("rel", as: RelationshipTransaction.self).edgeCount(name: "previous")
            }
            guard edges == users.count else {
                throw BenchError(.checkMismatch, "CofferRel:W1l holds \(edges) edges for \(users.count) records")
            }
            var figure = WorkloadResult(id: "W1l", ops: users.count, seconds: insert.seconds, baselineID: "W1")
            if let coffer = context.earlier["Coffer:W1"], coffer.ops > 0, coffer.seconds > 0 {
                let ratio = (insert.seconds / Double(users.count)) / (coffer.seconds / Double(coffer.ops))
                figure.extra.append((name: "vs_coffer_w1", value: String(format: "%.3f", ratio)))
            }
            result = figure
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        guard let result else { throw BenchError(.checkMismatch, "CofferRel:W1l did not run") }
        return result
    }

    private func runCascade(context: SuiteContext) throws -> WorkloadResult {
        let url = context.directory.appendingPathComponent("relationship-r1.sqlite")
        let count = Self.treeNodes
        var result: WorkloadResult?
        func session() throws -> ReleaseWatcher {
            let database = try CofferStore.open(url, context.configuration, run: context.options)
            database.registerCodable(TreeNode.self, forCollection: Self.treeCollection)
            try database.register(Relationship(allowedCollections: .only([Self.treeCollection])), withName: "rel")
            let connection = try database.newConnection(config: CofferStore.uncached)
            try connection.readWrite { tx in
                // Node i's children are 2i+1 and 2i+2: children are inserted after their parent.
                for index in 0..<count {
                    let children = [2 * index + 1, 2 * index + 2].filter { $0 < count }.map { "node-\($0)" }
                    try tx.setObject(
                        TreeNode(children: children), forKey: "node-\(index)", inCollection: Self.treeCollection)
                }
            }
            let removal = try Stopwatch.measure {
                try connection.readWrite { tx in
                    try tx.removeObject(forKey: "node-0", inCollection: Self.treeCollection)
                }
            }
            let left = try connection.read { tx in try tx.numberOfKeys(inCollection: Self.treeCollection) }
            guard left == 0 else {
                throw BenchError(.checkMismatch, "CofferRel:R1 left \(left) of \(count) tree nodes")
            }
            var figure = WorkloadResult(id: "R1", ops: count, seconds: removal.seconds, baselineID: nil)
            figure.extra.append((name: "within_1s", value: removal.seconds <= 1 ? "yes" : "no"))
            result = figure
            return ReleaseWatcher(database)
        }
        try session().waitForRelease()
        guard let result else { throw BenchError(.checkMismatch, "CofferRel:R1 did not run") }
        return result
    }
}
