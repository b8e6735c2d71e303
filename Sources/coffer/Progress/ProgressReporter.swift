import Coffer
import Dispatch
import Foundation

/// Shows how far long work has got, on standard error: a bar redrawn in place on a terminal,
/// plain lines otherwise (every 1,000 units or every second, whichever comes first).
///
/// Thread-safe: the library may report from its own queue (a backup's page steps) while a
/// timer ticks for work of unknown length.
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
        var lastLineCount: Int64 = 0
        var barVisible = false
        var paused = false
        var finished = false
        var ticker: (any DispatchSourceTimer)?
    }

    private let label: String
    private let unit: String
    private let style: Style
    private let pauseAfter: Int64?
    private let started = ContinuousClock.now
    private let state: Locked<State>

    /// Units between two plain progress lines.
    static let lineInterval: Int64 = 1_000

    /// Creates a reporter; nothing is shown until the first update.
    ///
    /// - Parameter pauseAfter: Testing aid: once `pauseAfter` units are done, wait (up to a
    ///   minute) for Ctrl-C, so a test can interrupt the work at a known point.
    init(label: String, unit: String, total: Int64?, style: Style, pauseAfter: Int64? = nil) {
        self.label = label
        self.unit = unit
        self.style = style
        self.pauseAfter = pauseAfter
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
        if let output { StandardStreams.writeError(output) }
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
                if let output { StandardStreams.writeError(output) }
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
        if let output { StandardStreams.writeError(output) }
    }

    private func snapshot(_ state: State) -> ProgressFormat.Snapshot {
        ProgressFormat.Snapshot(
            label: label, unit: unit, completed: state.completed, total: state.total,
            elapsed: Self.seconds(ContinuousClock.now - started))
    }

    /// The text to write now, if any; updates the throttling state.
    private func render(_ state: inout State, force: Bool) -> String? {
        let now = ContinuousClock.now
        let sinceDraw = Self.seconds(now - (state.lastDraw ?? started))
        switch style {
        case .silent:
            return nil
        case .bar:
            guard force || sinceDraw >= 0.1 else { return nil }
            state.lastDraw = now
            state.barVisible = true
            return "\r\u{1B}[2K" + ProgressFormat.bar(snapshot(state))
        case .lines:
            let advanced = state.completed - state.lastLineCount
            guard advanced >= Self.lineInterval || ((advanced > 0 || force) && sinceDraw >= 1) else { return nil }
            state.lastDraw = now
            state.lastLineCount = state.completed
            return ProgressFormat.line(snapshot(state)) + "\n"
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
