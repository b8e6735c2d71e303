import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// InterfaceReachability reads interface folders shaped like Linux's `/sys/class/net`.
@Suite struct ActionManagerInterfaceReachabilityTests {
    /// Writes an interface folder with its `operstate` and, when given, `carrier`.
    static func set(_ name: String, _ operstate: String, carrier: String? = nil, in directory: TemporaryDirectory)
        throws
    {
        let folder = directory.file(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("\(operstate)\n".utf8).write(to: folder.appendingPathComponent("operstate"))
        if let carrier { try Data("\(carrier)\n".utf8).write(to: folder.appendingPathComponent("carrier")) }
    }

    @Test func anInterfaceOtherThanLoopbackMustBeUp() throws {
        let directory = TemporaryDirectory()
        try Self.set("lo", "unknown", carrier: "1", in: directory)
        try Self.set("eth0", "down", carrier: "0", in: directory)
        let reachability = InterfaceReachability(directory: directory.url, interval: 3_600)
        #expect(!reachability.isReachable)
        let seen = Locked<[Bool]>([])
        let observation = reachability.observe { reachable in seen.withLock { $0.append(reachable) } }
        try Self.set("eth0", "up", carrier: "1", in: directory)
        reachability.refresh()
        #expect(reachability.isReachable)
        // A second read that finds the same answer tells nobody.
        reachability.refresh()
        try Self.set("eth0", "down", carrier: "0", in: directory)
        try Self.set("tun0", "unknown", carrier: "1", in: directory)
        reachability.refresh()
        #expect(reachability.isReachable)
        try FileManager.default.removeItem(at: directory.file("tun0"))
        reachability.refresh()
        #expect(!reachability.isReachable)
        #expect(seen.withLock { $0 } == [true, false])
        observation.cancel()
        try Self.set("eth0", "up", in: directory)
        reachability.refresh()
        #expect(seen.withLock { $0 } == [true, false])
    }

    @Test func aManagerWaitsForAnInterface() async throws {
        let directory = TemporaryDirectory()
        try Self.set("eth0", "down", in: directory)
        let reachability = InterfaceReachability(directory: directory.url, interval: 3_600)
        let fixture = try ActionFixture()
        try fixture.add(["sync": (10, nil)], needsNetwork: true)
        let manager = try fixture.manager(reachability: reachability)
        try await fixture.advance(to: 10, manager)
        #expect(fixture.recorder.runs.isEmpty)
        try Self.set("eth0", "up", in: directory)
        reachability.refresh()
        try await fixture.settle(manager)
        #expect(fixture.recorder.keys == ["sync"])
        await manager.stop()
    }

    @Test func thisMachineAnswers() {
        // Whatever the answer, reading the real folder neither fails nor blocks.
        _ = InterfaceReachability().isReachable
    }
}
