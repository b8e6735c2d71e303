import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

extension RelationshipSuites {
    /// Manual edges: YapDatabase's manual tests (removing the source, each way of removing an
    /// edge, removing a missing edge, an edge made after its rows), on two connections.
    @Suite struct RelationshipManualEdgeTests {
        typealias S = RelationshipSuites

        private func plain(_ key: String) -> CollectionKey { CollectionKey(collection: "plain", key: key) }

        private func edge(_ rules: RelationshipEdge.Rules) -> RelationshipEdge {
            RelationshipEdge(name: "manual", source: plain("src"), destination: .row(plain("dst")), rules: rules)
        }

        private func saveBoth(_ connection: Connection) throws {
            try connection.readWrite { tx in
                try tx.setObject("source", forKey: "src", inCollection: "plain")
                try tx.setObject("destination", forKey: "dst", inCollection: "plain")
            }
        }

        @Test func removingTheSourceDeletesTheDestination() throws {
            let f = try S.fixture()
            try f.one.readWrite { tx in
                try tx.setObject("source", forKey: "src", inCollection: "plain")
                try tx.setObject("destination", forKey: "dst", inCollection: "plain")
                try S.edges(tx).addEdge(edge(.deleteDestinationIfSourceDeleted))
                #expect(try S.edges(tx).edgeCount(name: "manual") == 1)
            }
            try f.two.read { tx throws in
                let found = try S.edges(tx).edges(source: plain("src"))
                #expect(found.count == 1)
                #expect(found.first?.isManual == true)
                #expect(found.first?.destination == .row(plain("dst")))
            }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "src", inCollection: "plain") }
            #expect(try S.keys(f.one, "plain").isEmpty)
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func anEdgeAddedInALaterTransactionThanItsRows() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            try f.two.readWrite { tx in try S.edges(tx).addEdge(edge(.deleteSourceIfDestinationDeleted)) }
            // Adding the same edge again only changes its rules.
            try f.one.readWrite { tx in
                try S.edges(tx).addEdge(edge(.deleteDestinationIfSourceDeleted))
                #expect(try S.edges(tx).edges().map(\.rules) == [.deleteDestinationIfSourceDeleted])
            }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "src", inCollection: "plain") }
            #expect(try S.keys(f.one, "plain").isEmpty)
        }

        @Test func removingAnEdgeOnlyRemovesTheEdge() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            let rules: RelationshipEdge.Rules = [.deleteDestinationIfSourceDeleted, .deleteSourceIfDestinationDeleted]
            try f.one.readWrite { tx in try S.edges(tx).addEdge(edge(rules)) }
            try f.two.readWrite { tx in try S.edges(tx).removeEdge(edge(rules), processing: .edgeDeleted) }
            #expect(try S.keys(f.one, "plain") == ["dst", "src"])
            try f.one.read { tx throws in #expect(try S.edges(tx).edgeCount() == 0) }
        }

        @Test func removingAnEdgeAsIfTheSourceWereDeleted() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            try f.one.readWrite { tx in try S.edges(tx).addEdge(edge(.deleteDestinationIfSourceDeleted)) }
            try f.two.readWrite { tx in
                try S.edges(tx).removeEdge(edge(.deleteDestinationIfSourceDeleted), processing: .sourceDeleted)
            }
            #expect(try S.keys(f.one, "plain") == ["src"])
        }

        @Test func removingAnEdgeAsIfTheDestinationWereDeleted() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            try f.one.readWrite { tx in try S.edges(tx).addEdge(edge(.deleteSourceIfDestinationDeleted)) }
            try f.two.readWrite { tx in
                try S.edges(tx).removeEdge(edge(.deleteSourceIfDestinationDeleted), processing: .destinationDeleted)
            }
            #expect(try S.keys(f.one, "plain") == ["dst"])
        }

        @Test func removingAnEdgeThatDoesNotExistIsHarmless() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            try f.one.readWrite { tx in
                let edges = try S.edges(tx)
                try edges.removeEdge(edge(.deleteDestinationIfSourceDeleted), processing: .sourceDeleted)
                try edges.removeEdge(
                    RelationshipEdge(name: "none", source: plain("nobody"), destination: .row(plain("dst"))),
                    processing: .destinationDeleted)
            }
            #expect(try S.keys(f.two, "plain") == ["dst", "src"])
        }

        @Test func anEdgeWithoutASourceOrInAReadIsRefused() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            let code = Extensions.code {
                try f.one.readWrite { tx in
                    try S.edges(tx).addEdge(RelationshipEdge(name: "x", destination: .row(plain("dst"))))
                }
            }
            #expect(code == .misuse)
            let readCode = Extensions.code {
                try f.one.read { tx in try S.edges(tx).addEdge(edge([])) }
            }
            #expect(readCode == .misuse)
        }

        @Test func aManualEdgeToARowWrittenLaterInTheTransaction() throws {
            let f = try S.fixture()
            try f.one.readWrite { tx in
                try tx.setObject("source", forKey: "src", inCollection: "plain")
                try S.edges(tx).addEdge(edge(.deleteDestinationIfSourceDeleted))
                // Waiting for its destination, the edge already counts.
                #expect(try S.edges(tx).edgeCount(source: plain("src")) == 1)
                try tx.setObject("destination", forKey: "dst", inCollection: "plain")
                #expect(try S.edges(tx).edgeCount(destination: .row(plain("dst"))) == 1)
            }
            try f.two.readWrite { tx in try tx.removeObject(forKey: "src", inCollection: "plain") }
            #expect(try S.keys(f.one, "plain").isEmpty)
        }

        @Test func removingACollectionRunsEachRowsRules() throws {
            let f = try S.fixture()
            try saveBoth(f.one)
            try f.one.readWrite { tx in
                try tx.setObject("other", forKey: "child", inCollection: "children")
                try S.edges(tx).addEdge(
                    RelationshipEdge(
                        name: "owns", source: plain("src"),
                        destination: .row(CollectionKey(collection: "children", key: "child")),
                        rules: .deleteDestinationIfSourceDeleted))
            }
            try f.two.readWrite { tx in try tx.removeAllObjects(inCollection: "plain") }
            #expect(try S.keys(f.one, "children").isEmpty)
        }
    }
}
