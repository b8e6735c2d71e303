import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension RelationshipSuites {
    /// Node edges: YapDatabase's protocol tests (standard and inverse edges, retain counts,
    /// cascades, cycles, notifications, edges to missing rows), on two connections.
    @Suite struct RelationshipNodeTests {
        typealias S = RelationshipSuites

        /// Counts by name, source, destination and pair, in the writing transaction and on the
        /// other connection.
        private func expectChildCounts(_ tx: ReadTransaction, _ expected: Int) throws {
            let edges = try S.edges(tx)
            #expect(try edges.edgeCount(name: "child") == expected)
            #expect(try edges.edgeCount(name: "child", source: S.node("n1")) == expected)
            #expect(try edges.edgeCount(name: "child", destination: S.row("n2")) == expected / 2)
            #expect(try edges.edgeCount(name: "child", destination: S.row("n3")) == expected / 2)
            #expect(try edges.edgeCount(name: "child", source: S.node("n1"), destination: S.row("n2")) == expected / 2)
            #expect(try edges.edgeCount(source: S.node("n1"), destination: S.row("n3")) == expected / 2)
            #expect(try edges.edges(name: "child", source: S.node("n1")).count == expected)
        }

        @Test func parentWithChildren() throws {
            let f = try S.fixture()
            let parent = TestNode(children: ["n2", "n3"])
            try f.one.readWrite { tx in
                try tx.setObject(parent, forKey: "n1", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n2", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n3", inCollection: "nodes")
                try expectChildCounts(tx, 2)
            }
            try f.two.read { tx in try expectChildCounts(tx, 2) }

            // Deleting the children removes the edges at once.
            try f.one.readWrite { tx in
                try tx.removeObject(forKey: "n2", inCollection: "nodes")
                try tx.removeObject(forKey: "n3", inCollection: "nodes")
                try expectChildCounts(tx, 0)
            }
            try f.two.read { tx in try expectChildCounts(tx, 0) }
            #expect(try S.keys(f.two) == ["n1"])

            // Re-saving the parent restores them.
            try f.one.readWrite { tx in
                try tx.setObject(TestNode(), forKey: "n2", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n3", inCollection: "nodes")
                try tx.replaceObject(parent, forKey: "n1", inCollection: "nodes")
                try expectChildCounts(tx, 2)
            }
            try f.two.read { tx in try expectChildCounts(tx, 2) }

            // Deleting the parent deletes the children.
            try f.one.readWrite { tx in
                try tx.removeObject(forKey: "n1", inCollection: "nodes")
                try expectChildCounts(tx, 0)
            }
            #expect(try S.keys(f.two).isEmpty)

            // Added and deleted in one transaction: flushed by hand, then at the commit.
            try f.two.readWrite { tx in
                try tx.setObject(parent, forKey: "n1", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n2", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n3", inCollection: "nodes")
                try tx.removeObject(forKey: "n1", inCollection: "nodes")
                try S.edges(tx).flush()
                #expect(try tx.object(forKey: "n2", inCollection: "nodes") == nil)
                #expect(try tx.object(forKey: "n3", inCollection: "nodes") == nil)
            }
            try f.two.readWrite { tx in
                try tx.setObject(parent, forKey: "n1", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n2", inCollection: "nodes")
                try tx.setObject(TestNode(), forKey: "n3", inCollection: "nodes")
                try tx.removeObject(forKey: "n1", inCollection: "nodes")
            }
            #expect(try S.keys(f.one).isEmpty)

            // Updating the parent to drop its children deletes them.
            try S.save(f.one, ["n1": parent, "n2": TestNode(), "n3": TestNode()])
            try f.two.readWrite { tx in try tx.setObject(TestNode(), forKey: "n1", inCollection: "nodes") }
            #expect(try S.keys(f.one) == ["n1"])
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func inverseEdges() throws {
            let f = try S.fixture()
            try S.save(f.one, ["n1": TestNode(), "n2": TestNode(parent: "n1"), "n3": TestNode(parent: "n1")])
            try f.two.read { tx in
                let edges = try S.edges(tx)
                #expect(try edges.edgeCount(name: "parent") == 2)
                #expect(try edges.edgeCount(name: "parent", destination: S.row("n1")) == 2)
                #expect(try edges.edgeCount(name: "parent", source: S.node("n2")) == 1)
                #expect(try edges.edgeCount(name: "parent", source: S.node("n3"), destination: S.row("n1")) == 1)
            }
            // A child going leaves the parent.
            try f.one.readWrite { tx in try tx.removeObject(forKey: "n2", inCollection: "nodes") }
            #expect(try S.keys(f.two) == ["n1", "n3"])
            // The parent going takes the remaining child.
            try f.two.readWrite { tx in try tx.removeObject(forKey: "n1", inCollection: "nodes") }
            #expect(try S.keys(f.one).isEmpty)
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func retainCountOnTheDestination() throws {
            let f = try S.fixture()
            try S.save(
                f.one, ["a": TestNode(retained: "shared"), "b": TestNode(retained: "shared"), "shared": TestNode()])
            try f.two.read { tx throws in #expect(try S.edges(tx).edgeCount(destination: S.row("shared")) == 2) }
            try f.one.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "nodes") }
            #expect(try S.keys(f.two) == ["b", "shared"])
            try f.two.readWrite { tx in try tx.removeObject(forKey: "b", inCollection: "nodes") }
            #expect(try S.keys(f.one).isEmpty)
        }

        @Test func retainCountOnTheSource() throws {
            let f = try S.fixture()
            try S.save(f.one, ["g1": TestNode(), "g2": TestNode(), "member": TestNode(groups: ["g1", "g2"])])
            try f.one.readWrite { tx in try tx.removeObject(forKey: "g1", inCollection: "nodes") }
            #expect(try S.keys(f.two) == ["g2", "member"])
            try f.two.readWrite { tx in try tx.removeObject(forKey: "g2", inCollection: "nodes") }
            #expect(try S.keys(f.one).isEmpty)
        }

        @Test func aCascadeThreeLevelsDeepFinishesInOneCommit() throws {
            let f = try S.fixture()
            try S.save(
                f.one,
                [
                    "root": TestNode(children: ["a", "b"]), "a": TestNode(children: ["a1", "a2"]),
                    "b": TestNode(children: ["b1"]), "a1": TestNode(children: ["a1x"]), "a2": TestNode(),
                    "b1": TestNode(), "a1x": TestNode(), "other": TestNode(),
                ])
            try f.one.readWrite { tx in try tx.removeObject(forKey: "root", inCollection: "nodes") }
            #expect(try S.keys(f.two) == ["other"])
            try f.two.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func aCycleOfDeleteRulesConverges() throws {
            let f = try S.fixture()
            try S.save(
                f.one,
                [
                    "x": TestNode(children: ["y"]), "y": TestNode(children: ["z"]), "z": TestNode(children: ["x"]),
                    "keep": TestNode(),
                ])
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount(name: "child") == 3) }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "y", inCollection: "nodes") }
            #expect(try S.keys(f.one) == ["keep"])
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func notifyRulesCallTheNodeAndStoreItsReplacement() throws {
            let f = try S.fixture()
            try S.save(f.one, ["watcher": TestNode(watching: "target"), "target": TestNode()])
            try f.one.readWrite { tx in try tx.removeObject(forKey: "target", inCollection: "nodes") }
            let watcher = try f.two.read { tx in
                try tx.object(forKey: "watcher", inCollection: "nodes", as: TestNode.self)
            }
            #expect(watcher?.notes == ["watch destinationDeleted"])
            #expect(watcher?.watching == nil)

            // The other direction: the destination hears that its source went.
            try S.save(f.one, ["watcher": TestNode(watching: "target"), "target": TestNode()])
            try f.two.readWrite { tx in try tx.removeObject(forKey: "watcher", inCollection: "nodes") }
            let target = try f.one.read { tx in
                try tx.object(forKey: "target", inCollection: "nodes", as: TestNode.self)
            }
            #expect(target?.notes == ["watch sourceDeleted"])
        }

        @Test func edgesToMissingNodesAreDroppedAtTheCommit() throws {
            let f = try S.fixture()
            try S.save(f.one, ["n1": TestNode(children: ["ghost"], parent: "nobody", groups: ["none"])])
            #expect(try S.keys(f.two) == ["n1"])
            try f.two.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
            // A valid node modified to carry invalid edges.
            try S.save(f.one, ["n2": TestNode(), "n3": TestNode(children: ["n2"])])
            try f.one.readWrite { tx in
                try tx.setObject(
                    TestNode(children: ["n2", "missing"], parent: "gone"), forKey: "n3", inCollection: "nodes")
                #expect(try S.edges(tx).edgeCount(source: S.node("n3")) == 3)
            }
            #expect(try S.keys(f.two) == ["n1", "n2", "n3"])
            try f.two.read { tx throws in
                #expect(try S.edges(tx).edges().map(\.description) == ["child: nodes/n3 → nodes/n2"])
            }
        }

        /// Removing a row and writing it again in one transaction is a replacement (YapDatabase):
        /// its removal's rules do not run and the edges into it come back.
        @Test func removingAndRewritingARowInOneTransactionIsAReplacement() throws {
            let f = try S.fixture()
            try S.save(f.one, ["p": TestNode(children: ["c"]), "c": TestNode(children: ["g"]), "g": TestNode()])
            try f.one.readWrite { tx in
                try tx.removeObject(forKey: "c", inCollection: "nodes")
                try tx.setObject(TestNode(children: ["g"]), forKey: "c", inCollection: "nodes")
            }
            #expect(try S.keys(f.two) == ["c", "g", "p"])
            try f.two.read { tx throws in
                #expect(try S.edges(tx).edgeCount(name: "child", source: S.node("p"), destination: S.row("c")) == 1)
                #expect(try S.edges(tx).edgeCount(name: "child") == 2)
            }
            // The parent still owns the rewritten child.
            try f.two.readWrite { tx in try tx.removeObject(forKey: "p", inCollection: "nodes") }
            #expect(try S.keys(f.one).isEmpty)
        }

        /// Registering over existing rows reads every node's edges (in any order of the rows).
        @Test func registeringReadsTheEdgesOfExistingNodes() throws {
            let test = try TestDatabase()
            test.database.registerCodable(TestNode.self, forCollection: "nodes")
            let connection = try test.connection()
            try S.save(
                connection, ["a": TestNode(children: ["b", "ghost"]), "b": TestNode(children: ["c"]), "c": TestNode()])
            try test.database.register(Relationship(), withName: S.name)
            try connection.read { tx throws in #expect(try S.edges(tx).edgeCount(name: "child") == 2) }
            try connection.readWrite { tx in try tx.removeObject(forKey: "a", inCollection: "nodes") }
            #expect(try S.keys(connection).isEmpty)
        }

        @Test func theNodeProtocolCanBeTurnedOffOrLimitedToCollections() throws {
            let off = try S.fixture(Relationship(readsNodeEdges: false))
            try S.save(off.one, ["n1": TestNode(children: ["n2"]), "n2": TestNode()])
            try off.one.readWrite { tx in try tx.removeObject(forKey: "n1", inCollection: "nodes") }
            #expect(try S.keys(off.two) == ["n2"])

            let limited = try S.fixture(Relationship(allowedCollections: .only(["elsewhere"])))
            try S.save(limited.one, ["n1": TestNode(children: ["n2"]), "n2": TestNode()])
            try limited.two.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func theChangesetListsAddedAndRemovedEdges() throws {
            let f = try S.fixture()
            _ = try f.two.read { tx in try S.edges(tx).edgeCount() }
            _ = try f.two.beginLongLivedReadTransaction()
            try S.save(f.one, ["n1": TestNode(children: ["n2"]), "n2": TestNode()])
            try f.one.readWrite { tx in try tx.removeObject(forKey: "n1", inCollection: "nodes") }
            let changesets = try f.two.beginLongLivedReadTransaction()
            let parts = changesets.compactMap { $0.changes(for: S.name, as: RelationshipChanges.self) }
            #expect(parts.count == 2)
            #expect(parts.first?.addedEdges.map(\.description) == ["child: nodes/n1 → nodes/n2"])
            #expect(parts.last?.removedEdges.map(\.description) == ["child: nodes/n1 → nodes/n2"])
            #expect(parts.last?.addedEdges.isEmpty == true)
        }

        @Test func nestedEnumerationWorks() throws {
            let f = try S.fixture()
            try S.save(
                f.one,
                [
                    "n1": TestNode(children: ["n2", "n3"]), "n2": TestNode(children: ["n4"]), "n3": TestNode(),
                    "n4": TestNode(),
                ])
            var pairs: [String] = []
            try f.two.read { tx in
                let edges = try S.edges(tx)
                try edges.enumerateEdges(name: "child", source: S.node("n1")) { outer, _ in
                    guard case .row(let child) = outer.destination else { return }
                    try edges.enumerateEdges(source: child) { inner, _ in
                        pairs.append("\(child.key)→\(inner.destination)")
                    }
                }
            }
            #expect(pairs == ["n2→nodes/n4"])
        }

        @Test func changingTheNodeEdgesVersionRebuildsNodeEdgesAndKeepsManualOnes() throws {
            let dir = TemporaryDirectory()
            let url = dir.file("db.sqlite")
            let options = TestKeyKind.raw.makeOptions()
            do {
                let database = try Database(url: url, options: options)
                database.registerCodable(TestNode.self, forCollection: "nodes")
                try database.register(Relationship(nodeEdgesVersion: "1"), withName: S.name)
                let connection = try database.newConnection()
                try S.save(connection, ["n1": TestNode(children: ["n2"]), "n2": TestNode(), "m": TestNode()])
                try connection.readWrite { tx in
                    try S.edges(tx).addEdge(
                        RelationshipEdge(name: "manual", source: S.node("m"), destination: S.row("n2")))
                }
                try database.close()
            }
            let database = try TestSupport.open(url, options: options)
            database.registerCodable(TestNode.self, forCollection: "nodes")
            try database.register(Relationship(nodeEdgesVersion: "2"), withName: S.name)
            let connection = try database.newConnection()
            try connection.read { tx in
                let edges = try S.edges(tx)
                #expect(try edges.edgeCount(name: "manual") == 1)
                #expect(try edges.edgeCount(name: "child") == 1)
                #expect(try edges.edgeCount() == 2)
            }
        }
    }
}
