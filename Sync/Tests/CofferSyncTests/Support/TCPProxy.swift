import CofferSync
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// A loopback TCP proxy between a client and a server, for tests of what a flaky network does
/// to sync: it can hold every byte (`pause()`), let them through again (`resume()`), and cut
/// every connection with a TCP reset (`sever()`) while still accepting new ones.
///
/// It listens on 127.0.0.1 on an ephemeral port and opens one upstream connection per client
/// connection. Everything runs on one event loop, so each call takes effect between two reads:
/// once `pause()` returns no further byte is forwarded either way (bytes already handed to the
/// kernel still arrive). Call `stop()` when done, or use `withTCPProxy(to:_:)`.
final class TCPProxy: Sendable {
    /// The address the proxy listens on.
    let host = "127.0.0.1"
    /// The port the proxy listens on, chosen by the system.
    let port: Int

    private let group: MultiThreadedEventLoopGroup
    private let state: NIOLoopBound<TCPProxyState>
    private let listener: any Channel
    private let stopped = Atomic<Bool>(false)

    /// Starts a proxy that forwards every connection to `targetHost:targetPort`.
    init(targetHost: String, targetPort: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // Bound to the loop, and so made on it.
        let state: NIOLoopBound<TCPProxyState>
        do {
            state = try await loop.submit {
                NIOLoopBound(TCPProxyState(targetHost: targetHost, targetPort: targetPort), eventLoop: loop)
            }.get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let client = TCPProxyRelay(state: state.value, isClientSide: true)
                        try channel.pipeline.syncOperations.addHandler(client)
                        state.value.connectUpstream(for: client, on: channel.eventLoop)
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            try? await group.shutdownGracefully()
            throw ChannelError.unknownLocalAddress
        }
        self.port = port
        self.listener = listener
        self.group = group
        self.state = state
    }

    /// Starts a proxy in front of the server of `target` (its host and port).
    convenience init(target: SyncServerAddress) async throws {
        try await self.init(targetHost: target.host, targetPort: target.port)
    }

    /// `address` with its host and port replaced by the proxy's: the same role and database,
    /// reached through the proxy.
    func address(for address: SyncServerAddress) -> SyncServerAddress {
        var proxied = address
        proxied.host = host
        proxied.port = port
        return proxied
    }

    /// Stops forwarding bytes both ways; connections stay open and new ones are accepted, but
    /// everything they send (a close included) is held until `resume()`.
    func pause() async throws {
        try await onLoop { $0.paused = true }
    }

    /// Forwards what was held, in order, and everything after it.
    func resume() async throws {
        try await onLoop { $0.resume() }
    }

    /// Closes every current connection, both sides, with a TCP reset (SO_LINGER 0).
    ///
    /// What was held is dropped; new connections are still accepted; pausing stays as it was.
    func sever() async throws {
        try await onLoop { $0.sever() }
    }

    /// Sends new connections to `targetHost:targetPort` (as a DNS name moved to another server
    /// would); current connections stay where they are.
    func redirect(toHost targetHost: String, port targetPort: Int) async throws {
        try await onLoop { state in
            state.targetHost = targetHost
            state.targetPort = targetPort
        }
    }

    /// How many client connections the proxy holds: open ones, and ones that closed while
    /// paused (their close is passed on at `resume()`).
    func connectionCount() async throws -> Int {
        try await onLoop { $0.connectionCount }
    }

    /// How many bytes the proxy holds (read while paused, or before the upstream side was up):
    /// more than zero once a call's request has reached a paused proxy.
    func heldByteCount() async throws -> Int {
        try await onLoop { $0.heldBytes }
    }

    /// Stops listening, resets every connection and ends the proxy's thread; safe to repeat.
    func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await listener.close()
        try? await onLoop { $0.sever() }
        try? await group.shutdownGracefully()
    }

    private func onLoop<Result: Sendable>(_ body: @escaping @Sendable (TCPProxyState) -> Result) async throws
        -> Result
    {
        let state = self.state
        return try await state.eventLoop.submit { body(state.value) }.get()
    }
}

/// Runs `body` with a proxy in front of the server of `target`, stopping the proxy afterwards
/// whether `body` threw or not.
func withTCPProxy<Result: Sendable>(
    to target: SyncServerAddress,
    _ body: (TCPProxy) async throws -> Result
) async throws -> Result {
    let proxy = try await TCPProxy(target: target)
    do {
        let result = try await body(proxy)
        await proxy.stop()
        return result
    } catch {
        await proxy.stop()
        throw error
    }
}

extension TestDevice {
    /// Stores this device's credentials with the server reached through `proxy`.
    func route(through proxy: TCPProxy) throws {
        var credentials = try #require(try replica.credentials())
        credentials.host = proxy.host
        credentials.port = proxy.port
        try replica.storeCredentials(credentials)
    }
}

extension TCPProxy {
    /// One step of the random tests' network faults: one time in 30 a pause of 10–80 ms, one
    /// in 30 a sever; whether it made a fault (otherwise the step is the test's own).
    func randomFault(using random: inout some RandomNumberGenerator) async throws -> Bool {
        switch Int.random(in: 0..<30, using: &random) {
        case 0:
            try await pause()
            try await Task.sleep(for: .milliseconds(Int.random(in: 10..<80, using: &random)))
            try await resume()
        case 1: try await sever()
        default: return false
        }
        return true
    }
}
