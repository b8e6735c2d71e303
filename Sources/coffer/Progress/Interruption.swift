import Coffer
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns Ctrl-C (SIGINT) into a cancellation request that long-running work polls.
///
/// Outside long work (or on a second Ctrl-C) the process ends at once with status 130, after
/// restoring the terminal if a passphrase prompt had turned its echo off. Inside a region
/// marked with ``whileCancellable(_:)`` the first Ctrl-C only sets ``isRequested``: the work
/// stops at its next checkpoint, rolls back or removes its partial output, and the error
/// renderer exits with 130.
final class Interruption: Sendable {
    /// The process-wide instance, installed once by ``CofferCommand``.
    static let shared = Interruption()

    private struct State {
        var cancellableDepth = 0
        var terminal: termios?
        var source: (any DispatchSourceSignal)?
    }

    private let requested = Atomic<Bool>(false)
    private let signals = Atomic<Int>(0)
    private let state = Locked(State())

    /// Starts listening for SIGINT on a dispatch queue instead of letting it kill the process.
    func install() {
        state.withLock { state in
            guard state.source == nil else { return }
            signal(SIGINT, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "coffer.sigint"))
            source.setEventHandler { [self] in handleSignal() }
            source.resume()
            state.source = source
        }
    }

    /// Whether Ctrl-C was pressed during cancellable work.
    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Throws ``CLIError`` `.cancelled` if Ctrl-C was pressed.
    func checkpoint() throws {
        if isRequested { throw CLIError.cancelled() }
    }

    /// Runs `body` with Ctrl-C meaning "stop at the next checkpoint".
    func whileCancellable<Result>(_ body: () throws -> Result) rethrows -> Result {
        state.withLock { $0.cancellableDepth += 1 }
        defer { state.withLock { $0.cancellableDepth -= 1 } }
        return try body()
    }

    /// Records terminal settings to restore if the process is ended during a prompt (nil: none).
    func rememberTerminal(_ settings: termios?) {
        state.withLock { $0.terminal = settings }
    }

    /// Testing aid: says so on standard error, then waits (up to a minute) for the next Ctrl-C.
    func waitForSignal() {
        let seen = signals.load(ordering: .acquiring)
        StandardStreams.writeError("coffer: paused for testing; waiting for Ctrl-C\n")
        let deadline = ContinuousClock.now + .seconds(60)
        while signals.load(ordering: .acquiring) == seen && ContinuousClock.now < deadline {
            usleep(10_000)
        }
    }

    private func handleSignal() {
        let (cancellable, terminal) = state.withLock { ($0.cancellableDepth > 0, $0.terminal) }
        if cancellable && !requested.exchange(true, ordering: .acquiringAndReleasing) {
            StandardStreams.writeError("\ncoffer: cancelling… (press Ctrl-C again to stop at once)\n")
            // Counted last, so a test's pause ends only once the request is visible.
            signals.add(1, ordering: .acquiringAndReleasing)
            return
        }
        if var terminal { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &terminal) }
        StandardStreams.writeError("\n")
        _exit(ExitStatus.cancelled.rawValue)
    }
}
