import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Both algorithms over chains and diamonds, priorities, the concurrency limit, holds on a manual
/// clock, suspend counts and the two ways of receiving operations.
@Suite(.timeLimit(.minutes(1))) struct CloudCorePipelineTests {
    @Test func oneCloudCoreServesOneRegistrationAtATime() throws {
        let fixture = try CloudFixture()
        // Registration reports an extension's own error as `.extensionFailure` around it.
        func refusal(_ body: () throws -> Void) -> CloudCoreError? {
            do {
                try body()
            } catch let error as DatabaseError {
                #expect(error.code == .extensionFailure)
                return error.underlying as? CloudCoreError
            } catch {
                Issue.record("unexpected \(error)")
            }
            return nil
        }
        let twice = refusal { try fixture.test.database.register(fixture.cloud, withName: "again") }
        #expect(twice?.code == .misuse)
        #expect(twice?.message.contains("\"cloud\"") == true)
        #expect(fixture.test.database.registeredExtension("again") == nil)

        let other = try TestDatabase()
        #expect(refusal { try other.database.register(fixture.cloud, withName: "cloud") }?.code == .misuse)
        // Once the first registration is gone, the value can serve another.
        try fixture.test.database.close()
        try other.database.register(fixture.cloud, withName: "cloud")
        #expect(other.database.registeredExtension("cloud") != nil)
    }

    @Test func unregisteringEmptiesThePipelinesAndARegistrationStartsAfresh() throws {
        let fixture = try CloudFixture()
        fixture.cloud.suspend()
        let ops = try fixture.commit("a", "b")
        #expect(fixture.pipeline.queuedOperations().flatMap { $0 }.count == 2)
        try fixture.test.database.unregister(extensionNamed: "cloud")
        #expect(fixture.pipeline.queuedOperations().isEmpty)
        fixture.cloud.resume()
        #expect(fixture.active.isEmpty)
        #expect(fixture.recorder.started.withLock { $0 }.isEmpty)

        // Unregistering dropped the tables, so a new registration starts from an empty queue
        // and runs what is added from then on.
        try fixture.test.database.register(fixture.cloud, withName: "cloud")
        #expect(fixture.pipeline.queuedOperations().isEmpty)
        #expect(ops.count == 2)
        try fixture.commit("c")
        #expect(fixture.active == ["c"])
    }

    @Test func aCommitGraphRunsGraphsInCommitOrder() throws {
        let fixture = try CloudFixture()
        var ops = try fixture.commit("a", "b")
        ops = try fixture.commit("c", into: ops)
        #expect(fixture.active == ["a", "b"])
        #expect(fixture.pipeline.graphCount == 2)
        try fixture.complete(ops["a"])
        #expect(fixture.active == ["b"])
        try fixture.complete(ops["b"])
        #expect(fixture.active == ["c"])
        try fixture.complete(ops["c"])
        #expect(fixture.active.isEmpty)
        #expect(fixture.pipeline.graphCount == 0)
    }

    @Test(arguments: [CloudCorePipeline.Algorithm.commitGraph, .flatGraph])
    func aDiamondRunsTheTopThenBothSidesThenTheBottom(_ algorithm: CloudCorePipeline.Algorithm) throws {
        let fixture = try CloudFixture(algorithm: algorithm)
        let ops = try fixture.commit([("a", [], 0), ("b", ["a"], 0), ("c", ["a"], 0), ("d", ["b", "c"], 0)])
        #expect(fixture.active == ["a"])
        try fixture.complete(ops["a"])
        #expect(fixture.active == ["b", "c"])
        try fixture.complete(ops["c"])
        #expect(fixture.active == ["b"])
        try fixture.complete(ops["b"])
        #expect(fixture.active == ["d"])
    }

    @Test(arguments: [CloudCorePipeline.Algorithm.commitGraph, .flatGraph])
    func aChainRunsOneAtATime(_ algorithm: CloudCorePipeline.Algorithm) throws {
        let fixture = try CloudFixture(algorithm: algorithm)
        let ops = try fixture.commit([("a", [], 0), ("b", ["a"], 9), ("c", ["b"], 5)])
        for (name, next) in [("a", "b"), ("b", "c")] {
            #expect(fixture.active == [name])
            try fixture.complete(ops[name])
            #expect(fixture.active == [next])
        }
    }

    @Test func aFlatGraphStartsLaterCommitsAtOnceButKeepsCrossCommitDependencies() throws {
        let fixture = try CloudFixture(algorithm: .flatGraph)
        var ops = try fixture.commit("a")
        ops = try fixture.commit([("b", [], 0), ("c", ["a"], 0)], into: ops)
        #expect(fixture.active == ["a", "b"])
        try fixture.complete(ops["a"])
        #expect(fixture.active == ["b", "c"])
    }

    @Test func aFlatGraphPrefersPriorityThenEarlierCommits() throws {
        let fixture = try CloudFixture(algorithm: .flatGraph, maxConcurrent: 1)
        var ops = try fixture.commit([("old", [], 1)])
        // The first commit's operation started before the others existed.
        ops = try fixture.commit([("new-low", [], 1), ("new-high", [], 7)], into: ops)
        #expect(fixture.active == ["old"])
        try fixture.complete(ops["old"])
        #expect(fixture.active == ["new-high"])
        ops = try fixture.commit([("newest-low", [], 1)], into: ops)
        try fixture.complete(ops["new-high"])
        #expect(fixture.active == ["new-low"])
    }

    @Test func prioritiesOrderAGraphWhenOneRunsAtATime() throws {
        let fixture = try CloudFixture(maxConcurrent: 1)
        let ops = try fixture.commit([("low", [], 1), ("high", [], 5), ("mid", [], 3), ("mid2", [], 3)])
        var order: [String] = []
        while let running = fixture.active.first {
            order.append(running)
            try fixture.complete(ops[running])
        }
        #expect(order == ["high", "mid", "mid2", "low"])
        #expect(fixture.recorder.started.withLock { $0 }.count <= 4)
    }

    @Test func theConcurrencyLimitCapsRunningOperations() throws {
        let fixture = try CloudFixture(maxConcurrent: 3)
        let ops = try fixture.commit((0..<10).map { ("op\($0)", [], 0) })
        #expect(fixture.active.count == 3)
        try fixture.complete(ops[fixture.active[0]])
        #expect(fixture.active.count == 3)
        fixture.pipeline.maxConcurrentOperationCount = 0
        #expect(fixture.active.count == 9)
    }

    @Test func holdDatesWaitForTheClockAndRetriesBackOff() async throws {
        let fixture = try CloudFixture()
        // One commit: in a commit graph, a held operation of an earlier commit would block later ones.
        let now = try await fixture.connection.readWrite { tx throws in
            let cloud = try tx.cloudCore("cloud")
            try cloud.add(CloudOperation(Upload(name: "later"), holdDate: CloudFixture.epoch.addingTimeInterval(60)))
            return try cloud.add(CloudOperation(Upload(name: "now"))).uuid
        }
        #expect(fixture.active == ["now"])
        #expect(fixture.clock.scheduledDates == [CloudFixture.epoch.addingTimeInterval(60)])
        fixture.clock.advance(by: 60)
        try await fixture.waitForActive(["later", "now"])

        // A failed upload goes back with a 30 s back-off.
        fixture.pipeline.setPending(now, retryAfter: 30)
        #expect(fixture.active == ["later"])
        #expect(fixture.pipeline.status(of: now) == .pending)
        #expect(fixture.pipeline.holdDate(for: now) == fixture.clock.now.addingTimeInterval(30))
        fixture.clock.advance(by: 29)
        try await Task.sleep(for: .milliseconds(20))
        #expect(fixture.active == ["later"])
        fixture.clock.advance(by: 1)
        try await fixture.waitForActive(["later", "now"])
    }

    @Test func anOperationStillRunningAfterARestartAndAHoldSetByHand() async throws {
        let fixture = try CloudFixture(delegate: false)
        let ops = try fixture.commit("a", "b", "c")
        let (a, b) = (try #require(ops["a"]), try #require(ops["b"]))
        fixture.pipeline.setActive(a)  // a background transfer found still going
        fixture.pipeline.setHoldDate(CloudFixture.epoch.addingTimeInterval(10), for: b)
        #expect(fixture.pipeline.holdDate(for: b) == CloudFixture.epoch.addingTimeInterval(10))
        fixture.pipeline.delegate = fixture.recorder
        #expect(fixture.active == ["a", "c"])
        fixture.clock.advance(by: 10)
        try await fixture.waitForActive(["a", "b", "c"])
        let recorder = fixture.recorder
        try await TestSupport.withTimeout {
            while recorder.started.withLock({ $0 }).count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(recorder.started.withLock { $0 }.sorted() == ["b", "c"])
    }

    @Test func suspendCountsMustAllBeResumed() async throws {
        let fixture = try CloudFixture()
        let events = fixture.cloud.events()
        #expect(fixture.cloud.suspend(count: 2) == 2)
        try fixture.commit("a")
        #expect(fixture.active.isEmpty)
        #expect(fixture.cloud.resume() == 1)
        #expect(fixture.active.isEmpty)
        #expect(fixture.cloud.isSuspended)
        #expect(fixture.cloud.resume() == 0)
        #expect(fixture.active == ["a"])
        #expect(fixture.cloud.resume() == 0)
        var seen: [Int] = []
        for await event in events {
            if case .suspendCountChanged(let count) = event { seen.append(count) }
            if seen.count == 3 { break }
        }
        #expect(seen == [2, 1, 0])
    }

    @Test func theActiveStatusFollowsRunningOperationsAndSuspension() async throws {
        let fixture = try CloudFixture()
        let events = fixture.cloud.events()
        #expect(!fixture.pipeline.isActive)
        let ops = try fixture.commit("a", "b")
        #expect(fixture.pipeline.isActive)
        try fixture.complete(ops["a"])
        fixture.cloud.suspend()
        // Still running b: active until it is done.
        #expect(fixture.pipeline.isActive)
        try fixture.complete(ops["b"])
        #expect(!fixture.pipeline.isActive)
        var seen: [Bool] = []
        for await event in events {
            if case .activeStatusChanged(let pipeline, let isActive) = event, pipeline == "default" {
                seen.append(isActive)
            }
            if seen.count == 2 { break }
        }
        #expect(seen == [true, false])
    }

    @Test func theStartedOperationsSequenceReceivesWhatADelegateWould() async throws {
        let fixture = try CloudFixture(maxConcurrent: 1, delegate: false)
        try fixture.commit("a", "b")
        #expect(fixture.active.isEmpty)  // nothing receives them yet
        let started = fixture.pipeline.startedOperations()
        var iterator = started.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.payload(as: Upload.self)?.name == "a")
        #expect(first.status == .active)
        try fixture.complete(first.uuid)
        let second = try #require(await iterator.next())
        #expect(second.payload(as: Upload.self)?.name == "b")
    }

    @Test func aCancelledIterationTakesNothingFromTheQueue() async throws {
        let fixture = try CloudFixture(delegate: false)
        let pipeline = fixture.pipeline
        fixture.cloud.suspend()
        try fixture.commit("a")
        let waiting = Task { () -> CloudOperation? in
            var iterator = pipeline.startedOperations().makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == nil)
        fixture.cloud.resume()
        #expect(fixture.active.isEmpty)
        #expect(pipeline.status(of: try #require(pipeline.queuedOperations().first?.first?.uuid)) == .pending)
    }

    @Test func theDelegateIsHandedStartedOperations() async throws {
        let fixture = try CloudFixture()
        try fixture.commit("a", "b")
        let recorder = fixture.recorder
        try await TestSupport.withTimeout {
            while recorder.started.withLock({ $0 }).count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(fixture.recorder.started.withLock { $0 }.sorted() == ["a", "b"])
    }

    @Test func queueChangesArePostedAndStreamed() async throws {
        let fixture = try CloudFixture()
        let events = fixture.cloud.events()
        let posted = Locked<[CloudCoreQueueChange]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: CloudCore.queueChangedNotification, object: fixture.pipeline, queue: nil
        ) { notification in
            if case .queueChanged(let change)? = notification.userInfo?[CloudCore.eventUserInfoKey] as? CloudCoreEvent {
                posted.withLock { $0.append(change) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let ops = try fixture.commit("a")
        try fixture.complete(ops["a"])
        var changes: [CloudCoreQueueChange] = []
        for await event in events {
            if case .queueChanged(let change) = event { changes.append(change) }
            if changes.count == 2 { break }
        }
        let a = try #require(ops["a"])
        #expect(changes == [.init(pipeline: "default", added: [a]), .init(pipeline: "default", removed: [a])])
        await fixture.cloud.runtime.events.drain()
        #expect(posted.withLock { $0 } == changes)
    }
}
