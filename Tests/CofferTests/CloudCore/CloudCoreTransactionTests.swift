import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// The transaction API: adding, inserting, modifying, completing and skipping, lookups, and the
/// clear errors for what cannot be queued.
@Suite(.timeLimit(.minutes(1))) struct CloudCoreTransactionTests {
    @Test func anOperationExistsAfterCommitAndNotAfterRollback() throws {
        let fixture = try CloudFixture()
        let kept = CloudOperation(Upload(name: "kept"))
        let dropped = CloudOperation(Upload(name: "dropped"))
        _ = try fixture.connection.readWrite { tx in try tx.cloudCore("cloud").add(kept) }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try fixture.connection.readWrite { tx in
                try tx.cloudCore("cloud").add(dropped)
                #expect(try tx.cloudCore("cloud").operation(dropped.uuid) != nil)
                throw Abort()
            }
        }
        try fixture.connection.read { tx in
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.operation(kept.uuid)?.payload(as: Upload.self) == Upload(name: "kept"))
            #expect(try cloud.operation(dropped.uuid) == nil)
        }
        #expect(fixture.pipeline.operation(dropped.uuid) == nil)
        #expect(fixture.pipeline.status(of: kept.uuid) == .active)
        // A later transaction still works: the rollback gave the commit order back.
        try fixture.commit("after")
    }

    @Test func lookupsSeeTheTransactionsOwnChanges() throws {
        let fixture = try CloudFixture(delegate: false)
        var ops = try fixture.commit("old")
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.graphIndexForAddedOperations() == 1)
            let a = try cloud.add(CloudOperation(Upload(name: "a")))
            let b = try cloud.add(CloudOperation(Upload(name: "b"), dependencies: [a.uuid]))
            let media = try cloud.add(CloudOperation(Upload(name: "m"), pipeline: "media"))
            ops["a"] = a.uuid
            #expect(try cloud.addedOperations().map(\.uuid) == [a.uuid, b.uuid, media.uuid])
            #expect(try cloud.addedOperations(inPipeline: "media").map(\.uuid) == [media.uuid])
            #expect(try cloud.graphs(inPipeline: "default").map { $0.count } == [1, 2])
            #expect(try cloud.graphIndex(of: b.uuid) == 1)
            #expect(try cloud.recursiveDependencies(of: b.uuid) == [a.uuid])
            #expect(try cloud.operations().count == 4)
            #expect(b.graphID == a.graphID)
            #expect(b.graphID > (try cloud.operation(ops["old"]!)?.graphID ?? .max))
        }
    }

    @Test func insertingIntoTheRunningGraphResolvesAConflict() throws {
        let fixture = try CloudFixture()
        var ops = try fixture.commit("a")
        ops = try fixture.commit("later", into: ops)
        #expect(fixture.active == ["a"])
        // "a" failed: run a fix first, in the same graph, then retry "a".
        let fix = try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            let fix = try cloud.insert(CloudOperation(Upload(name: "fix")), inGraph: 0)
            var a = try #require(try cloud.operation(ops["a"]!))
            a.addDependency(fix)
            try cloud.modify(a)
            #expect(throws: CloudCoreError.self) { try cloud.insert(CloudOperation(Upload(name: "x")), inGraph: 5) }
            return fix
        }
        fixture.pipeline.setPending(try #require(ops["a"]))
        #expect(fixture.active == ["fix"])
        try fixture.complete(fix.uuid)
        #expect(fixture.active == ["a"])
        try fixture.complete(ops["a"])
        #expect(fixture.active == ["later"])
    }

    @Test func modifyingARunningOperationKeepsItRunning() throws {
        let fixture = try CloudFixture()
        let ops = try fixture.commit("a")
        let uuid = try #require(ops["a"])
        #expect(fixture.pipeline.status(of: uuid) == .active)
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            var a = try #require(try cloud.operation(uuid))
            #expect(a.status == .active)
            a.payload = Upload(name: "a2")
            a.priority = 4
            try cloud.modify(a)
        }
        #expect(fixture.pipeline.status(of: uuid) == .active)
        #expect(fixture.pipeline.operation(uuid)?.payload(as: Upload.self)?.name == "a2")
        #expect(fixture.recorder.started.withLock { $0 }.count <= 1)
        try fixture.complete(uuid)
        #expect(fixture.pipeline.operation(uuid) == nil)
    }

    @Test func skippingOperationsPassingATestReleasesTheirDependents() throws {
        let fixture = try CloudFixture()
        let ops = try fixture.commit([("a", [], 0), ("a2", [], 0), ("b", ["a"], 0), ("c", ["a", "a2"], 0)])
        #expect(fixture.active == ["a", "a2"])
        let skipped = try fixture.connection.readWrite { tx in
            try tx.cloudCore("cloud").skipOperations { $0.payload(as: Upload.self)?.name.hasPrefix("a") == true }
        }
        #expect(Set(skipped) == [ops["a"]!, ops["a2"]!])
        #expect(fixture.active == ["b", "c"])
        let left = try fixture.connection.read { tx in try tx.cloudCore("cloud").operations().map(\.uuid) }
        #expect(Set(left) == [ops["b"]!, ops["c"]!])
    }

    @Test func aMissingDependencyACycleAndOtherMistakesAreClearErrors() throws {
        let fixture = try CloudFixture()
        let ops = try fixture.commit([("a", [], 0), ("b", ["a"], 0)])
        let a = try #require(ops["a"])
        let b = try #require(ops["b"])
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            func code(_ body: () throws -> Void) -> CloudCoreError.Code? {
                do { try body() } catch let error as CloudCoreError { return error.code } catch { return nil }
                return nil
            }
            #expect(
                code { try cloud.add(CloudOperation(Upload(name: "x"), dependencies: [UUID()])) } == .dependencyNotFound
            )
            #expect(
                code { try cloud.add(CloudOperation(Upload(name: "x"), pipeline: "media", dependencies: [a])) }
                    == .dependencyNotFound)
            #expect(code { try cloud.add(CloudOperation(Upload(name: "x"), pipeline: "nowhere")) } == .unknownPipeline)
            #expect(code { try cloud.add(CloudOperation(Upload(name: "again"), uuid: a)) } == .duplicateOperation)
            var looped = try #require(try cloud.operation(a))
            looped.dependencies = [b]
            #expect(code { try cloud.modify(looped) } == .dependencyCycle)
            looped.dependencies = [a]
            #expect(code { try cloud.modify(looped) } == .dependencyNotFound)
            looped.dependencies = []
            looped.pipeline = "media"
            #expect(code { try cloud.modify(looped) } == .misuse)
            #expect(code { try cloud.complete(UUID()) } == .operationNotFound)
            try cloud.complete(a)
            #expect(code { try cloud.skip(a) } == .operationNotFound)
        }
        _ = try fixture.connection.read { tx in
            #expect(throws: CloudCoreError.self) { try tx.cloudCore("cloud").add(CloudOperation(Upload(name: "ro"))) }
        }
        #expect(fixture.active == ["b"])
    }

    @Test func aCommitsChangesetCarriesTheQueueChanges() async throws {
        let fixture = try CloudFixture()
        let changes = fixture.test.database.changes
        let ops = try fixture.commit("a")
        try fixture.complete(ops["a"])
        var seen: [CloudCoreQueueChange] = []
        for await changeset in changes {
            if let change = changeset.changes(for: "cloud", as: CloudCoreChanges.self)?.pipelines["default"] {
                seen.append(change)
            }
            if seen.count == 2 { break }
        }
        let a = try #require(ops["a"])
        #expect(seen == [.init(pipeline: "default", added: [a]), .init(pipeline: "default", removed: [a])])
    }

    @Test func anOperationOfAnUnregisteredTypeCannotBeAdded() throws {
        let fixture = try CloudFixture(types: [Upload.self])
        _ = try fixture.connection.readWrite { tx in
            #expect {
                try tx.cloudCore("cloud").add(CloudOperation(Purge(path: "/x")))
            } throws: { ($0 as? CloudCoreError)?.code == .unknownOperationType }
        }
    }
}
