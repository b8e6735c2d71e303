import Coffer
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns Ctrl-C (SIGINT) into a cancellation request that long-running work polls, and makes
/// what `coffer` says about a Ctrl-C agree with how the command ends.
///
/// Outside long work (or on a second Ctrl-C) the process ends at once with status 130, after
/// restoring the terminal if a passphrase prompt had turned its echo off and undoing what the
/// command registered with ``onForcedStop(_:)``. Inside a region marked with
/// ``whileCancellable(_:)`` the first Ctrl-C only sets ``isRequested``: the work stops at its
/// next checkpoint, rolls back or removes its partial output, and the error renderer exits with
/// 130. A command that reaches its point of no return calls ``commit(_:)``: a Ctrl-C that came
/// before still cancels it there, and one that comes after is answered "too late to cancel"
/// while the command finishes as if no Ctrl-C had come.
final class Interruption: Sendable {
    /// The process-wide instance, installed once by ``CofferCommand``.
    static let shared = Interruption()

    private struct State {
        var cancellableDepth = 0
        /// Set by ``commit(_:)``: what the command has done, for a Ctrl-C that comes too late.
        var outcome: String?
        var undo: (@Sendable () -> Void)?
        var terminal: termios?
        var source: (any DispatchSourceSignal)?
    }

    /// What a Ctrl-C does, decided under the lock so that it cannot cross ``commit(_:)``.
    private enum Response {
        case cancel
        case tooLate(String)
        case stop(termios?, (@Sendable () -> Void)?)
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

    /// Passes the command's point of no return: from here on its result stands.
    ///
    /// A Ctrl-C pressed before this call cancels the command here, so the caller still removes
    /// or rolls back what it did; one pressed after it is answered
    /// `coffer: too late to cancel: <outcome>` and the command finishes as if it had not come.
    /// - Parameter outcome: What is done, in a few words ("the backup is complete").
    /// - Throws: ``CLIError`` `.cancelled` when Ctrl-C came first.
    func commit(_ outcome: String) throws {
        try state.withLock { state throws(CLIError) in
            if requested.load(ordering: .acquiring) { throw CLIError.cancelled() }
            state.outcome = outcome
            state.undo = nil
        }
        DebugPause.commit.pauseIfRequested()
    }

    /// Registers what a second Ctrl-C (stop at once) must undo before the process ends.
    ///
    /// For example putting back a file the command replaced; nil removes it, and so does
    /// ``commit(_:)``.
    func onForcedStop(_ undo: (@Sendable () -> Void)?) {
        state.withLock { $0.undo = undo }
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

    /// The `--json` report of a command stopped at once by Ctrl-C.
    private static let stoppedReport = JSONErrorReport(
        code: ErrorCodes.cancelled, message: "stopped at once by Ctrl-C", exitStatus: ExitStatus.cancelled.rawValue
    ).encoded()

    private func handleSignal() {
        let response = state.withLock { state -> Response in
            if let outcome = state.outcome { return .tooLate(outcome) }
            if state.cancellableDepth > 0 && !requested.exchange(true, ordering: .acquiringAndReleasing) {
                return .cancel
            }
            return .stop(state.terminal, state.undo)
        }
        // With --json, standard error holds only the failure's report: the notes are left out,
        // and a stop at once is reported as the cancellation it is.
        let json = OutputMode.isJSON
        switch response {
        case .cancel:
            if !json { StandardStreams.writeError("\ncoffer: cancelling… (press Ctrl-C again to stop at once)\n") }
        case .tooLate(let outcome):
            if !json { StandardStreams.writeError("\ncoffer: too late to cancel: \(outcome)\n") }
        case .stop(let terminal, let undo):
            undo?()
            if var terminal { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &terminal) }
            StandardStreams.writeError(json ? Self.stoppedReport + "\n" : "\n")
            _exit(ExitStatus.cancelled.rawValue)
        }
        // Counted last, so a test's pause ends only once the response above has taken effect.
        signals.add(1, ordering: .acquiringAndReleasing)
    }
}
