import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The stored form of an operation and the UUIDs new operations get.
@Suite(.timeLimit(.minutes(1))) struct CloudOperationCodingTests {
    @Test func everyFieldSurvivesTheTableAndARestart() throws {
        let fixture = try CloudFixture(delegate: false)
        let hold = Date(timeIntervalSinceReferenceDate: 123_456.75)
        let stored = try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            let a = try cloud.add(CloudOperation(Upload(name: "a")))
            let b = try cloud.add(CloudOperation(Upload(name: "b")))
            return try cloud.add(
                CloudOperation(Purge(path: "/x/ü"), dependencies: [a.uuid, b.uuid], priority: -3, holdDate: hold))
        }
        let reopened = try CloudCoreStorageTests.reopen(fixture, delegate: false)
        let read = try reopened.connection.read { tx in try tx.cloudCore("cloud").operation(stored.uuid) }
        let back = try #require(read)
        #expect(back.payload(as: Purge.self) == Purge(path: "/x/ü"))
        #expect(back.dependencies == stored.dependencies)
        #expect(back.priority == -3)
        #expect(back.holdDate == hold)
        #expect(back.pipeline == "default")
        #expect(back.graphID == stored.graphID)
    }

    @Test func newOperationsGetIncreasingVersion7UUIDs() {
        let uuids = (0..<2_000).map { _ in CloudOperation(Upload(name: "x")).uuid }
        for uuid in uuids {
            #expect(uuid.uuid.6 >> 4 == 7)
            #expect(uuid.uuid.8 >> 6 == 0b10)
        }
        let bytes = uuids.map(\.storedBytes)
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        #expect(Set(uuids).count == uuids.count)
    }
}
