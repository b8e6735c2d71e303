import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The proxy's mutable state, touched only on its one event loop, so that `pause()` and
/// `sever()` take effect between two reads and never in the middle of forwarding one.
final class TCPProxyState {
    /// Where new connections are forwarded to.
    var targetHost: String
    /// The target's port.
    var targetPort: Int
    /// Whether bytes are being held rather than forwarded.
    var paused = false
    /// Bytes read while paused (or before the upstream connection was up), not yet forwarded.
    var heldBytes = 0
    /// Every open side of every proxied connection.
    private(set) var relays: [ObjectIdentifier: TCPProxyRelay] = [:]

    /// Starts with the target every new connection goes to.
    init(targetHost: String, targetPort: Int) {
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    /// How many client connections are open through the proxy.
    var connectionCount: Int { relays.values.filter(\.isClientSide).count }

    /// Records an open side of a connection.
    func register(_ relay: TCPProxyRelay) { relays[ObjectIdentifier(relay)] = relay }

    /// Forgets a side of a connection that closed.
    func unregister(_ relay: TCPProxyRelay) { relays[ObjectIdentifier(relay)] = nil }

    /// Forwards everything held, and closes what closed while held.
    func resume() {
        paused = false
        for relay in relays.values { relay.forwardHeld() }
    }

    /// Resets every open connection, both sides.
    ///
    /// Every socket gets SO_LINGER 0 before any closes, so that a side closing because its
    /// partner did still sends a reset rather than an orderly FIN.
    func sever() {
        let open = Array(relays.values)
        for relay in open { relay.armReset() }
        for relay in open { relay.close() }
    }

    /// Opens the upstream side of a connection just accepted on `loop`, pairing the two once
    /// it is up, or resetting the client when the target cannot be reached.
    func connectUpstream(for client: TCPProxyRelay, on loop: any EventLoop) {
        let upstream = NIOLoopBound(TCPProxyRelay(state: self, isClientSide: false), eventLoop: loop)
        let clientSide = NIOLoopBound(client, eventLoop: loop)
        ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(upstream.value)
                }
            }
            .connect(host: targetHost, port: targetPort)
            .whenComplete { result in
                switch result {
                case .success:
                    upstream.value.partner = clientSide.value
                    clientSide.value.partner = upstream.value
                case .failure:
                    clientSide.value.reset()
                }
            }
    }
}

/// One side of a proxied connection: forwards what it reads to the other side, or holds it
/// while the proxy is paused or the other side is not up yet.
final class TCPProxyRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Whether this side faces the client (the other faces the target).
    let isClientSide: Bool
    private let state: TCPProxyState
    private var context: ChannelHandlerContext?
    private var held: [ByteBuffer] = []
    private var closedWhileHeld = false

    /// The other side of the connection; once set, what was held so far goes to it.
    var partner: TCPProxyRelay? {
        didSet { forwardHeld() }
    }

    /// A side of a connection of the proxy with `state`.
    init(state: TCPProxyState, isClientSide: Bool) {
        self.state = state
        self.isClientSide = isClientSide
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        state.register(self)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        state.unregister(self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        held.append(bytes)
        state.heldBytes += bytes.readableBytes
        forwardHeld()
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.unregister(self)
        // A close is news like any byte: held while paused, passed on in order otherwise.
        closedWhileHeld = true
        forwardHeld()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Passes on what was held (bytes, then a close), unless paused or without a partner.
    func forwardHeld() {
        guard let partner, !state.paused else { return }
        for bytes in held {
            state.heldBytes -= bytes.readableBytes
            partner.write(bytes)
        }
        held.removeAll()
        if closedWhileHeld {
            closedWhileHeld = false
            partner.close()
        }
    }

    /// Closes this side with a TCP reset rather than an orderly FIN, as a middlebox or a
    /// crashed peer would.
    func reset() {
        armReset()
        close()
    }

    /// Makes this side's close a TCP reset (SO_LINGER 0) and drops what it held.
    func armReset() {
        if let socket = context?.channel as? any SocketOptionProvider {
            _ = socket.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        }
        for bytes in held { state.heldBytes -= bytes.readableBytes }
        held.removeAll()
        closedWhileHeld = false
    }

    /// Closes this side (with a reset once `armReset()` ran).
    func close() {
        context?.close(promise: nil)
    }

    private func write(_ bytes: ByteBuffer) {
        context?.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
