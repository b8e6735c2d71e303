import Coffer
import Dispatch
import Foundation

/// Shows how far long work has got, on standard error: a bar redrawn in place on a terminal,
/// plain lines otherwise, as rarely as ``ProgressThrottle`` allows (at most one a second and one
/// per 10 % of a known total).
///
/// Thread-safe: the library may report from its own queue (a backup's page steps) while a
/// timer ticks for work of unknown length. The clock and the output are injectable so tests
/// decide what time it is instead of sleeping.
final class ProgressReporter: Sendable {
    /// How progress is shown.
    enum Style: Sendable, Equatable {
        /// A bar redrawn on one terminal line.
        case bar
        /// Plain lines, for pipes and logs.
        case lines
        /// Nothing.
        case silent
    }

    private struct State {
        var completed: Int64 = 0
        var total: Int64?
        var lastDraw: ContinuousClock.Instant?
        var throttle = ProgressThrottle()
        var barVisible = false
        var paused = false
        var finished = false
        var ticker: (any DispatchSourceTimer)?
    }

    private let label: String
    private let unit: String
    private let style: Style
    private let pauseAfter: Int64?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let write: @Sendable (String) -> Void
    private let started: ContinuousClock.Instant
    private let state: Locked<State>

    /// Creates a reporter; nothing is shown until the first update.
    ///
    /// - Parameters:
    ///   - pauseAfter: Testing aid: once `pauseAfter` units are done, wait (up to a minute) for
    ///     Ctrl-C, so a test can interrupt the work at a known point.
    ///   - now: The clock (tests pass one they advance by hand).
    ///   - write: Where the text goes (standard error unless a test collects it).
    init(
        label: String, unit: String, total: Int64?, style: Style, pauseAfter: Int64? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        write: @escaping @Sendable (String) -> Void = { StandardStreams.writeError($0) }
    ) {
        self.label = label
        self.unit = unit
        self.style = style
        self.pauseAfter = pauseAfter
        self.now = now
        self.write = write
        self.started = now()
        self.state = Locked(State(total: total))
    }

    /// Records progress and redraws when due.
    func update(completed: Int64, total: Int64? = nil) {
        let (output, pause) = state.withLock { state -> (String?, Bool) in
            guard !state.finished else { return (nil, false) }
            state.completed = completed
            if let total { state.total = total }
            var pause = false
            if let pauseAfter, completed >= pauseAfter, !state.paused {
                state.paused = true
                pause = true
            }
            return (render(&state, force: pause), pause)
        }
        if let output { write(output) }
        if pause { Interruption.shared.waitForSignal() }
    }

    /// Redraws on a timer while the work reports nothing (work of unknown length).
    func startTicking() {
        guard style != .silent else { return }
        let interval: DispatchTimeInterval = style == .bar ? .milliseconds(100) : .seconds(1)
        state.withLock { state in
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "coffer.progress"))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [self] in
                let output = self.state.withLock { render(&$0, force: style == .lines) }
                if let output { write(output) }
            }
            timer.resume()
            state.ticker = timer
        }
    }

    /// Stops the timer, clears the bar and prints the summary line (unless silent).
    func finish(succeeded: Bool = true) {
        let output = state.withLock { state -> String? in
            guard !state.finished else { return nil }
            state.finished = true
            state.ticker?.cancel()
            state.ticker = nil
            guard style != .silent else { return nil }
            let clear = state.barVisible ? "\r\u{1B}[2K" : ""
            state.barVisible = false
            guard succeeded else { return clear.isEmpty ? nil : clear }
            return clear + ProgressFormat.summary(snapshot(state)) + "\n"
        }
        if let output { write(output) }
    }

    private func snapshot(_ state: State) -> ProgressFormat.Snapshot {
        ProgressFormat.Snapshot(
            label: label, unit: unit, completed: state.completed, total: state.total,
            elapsed: Self.seconds(now() - started))
    }

    /// The text to write now, if any; updates the throttling state.
    private func render(_ state: inout State, force: Bool) -> String? {
        let time = now()
        switch style {
        case .silent:
            return nil
        case .bar:
            guard force || Self.seconds(time - (state.lastDraw ?? started)) >= 0.1 else { return nil }
            state.lastDraw = time
            state.barVisible = true
            return "\r\u{1B}[2K" + ProgressFormat.bar(snapshot(state))
        case .lines:
            let due = state.throttle.lineIsDue(
                completed: state.completed, total: state.total, elapsed: Self.seconds(time - started), force: force)
            return due ? ProgressFormat.line(snapshot(state)) + "\n" : nil
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
