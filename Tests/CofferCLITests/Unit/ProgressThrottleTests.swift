import Synchronization
import Testing

@testable import coffer

/// A clock a test moves by hand, and the text a reporter wrote.
private final class FakeTerminal: Sendable {
    let start = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)
    private let written = Mutex<[String]>([])

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
    var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
    func write(_ text: String) { written.withLock { $0.append(text) } }
    var output: [String] { written.withLock { $0 } }

    func reporter(total: Int64?, style: ProgressReporter.Style) -> ProgressReporter {
        ProgressReporter(
            label: "import-json", unit: "rows", total: total, style: style, now: { self.now },
            write: { self.write($0) })
    }
}

@Suite("coffer progress throttling")
struct ProgressThrottleTests {
    @Test func aFastJobWithoutATerminalPrintsOnlyItsSummary() {
        let terminal = FakeTerminal()
        let reporter = terminal.reporter(total: 10_000, style: .lines)
        for row in 1...10_000 {
            terminal.advance(by: .microseconds(50))
            reporter.update(completed: Int64(row))
        }
        reporter.finish()
        #expect(terminal.output.count == 1)
        #expect(terminal.output.first?.hasPrefix("import-json: done, 10000 rows") == true)
    }

    @Test func aSlowJobOfKnownSizePrintsOneLinePerTenPercent() {
        let terminal = FakeTerminal()
        let reporter = terminal.reporter(total: 1_000, style: .lines)
        for row in 1...1_000 {
            terminal.advance(by: .milliseconds(100))
            reporter.update(completed: Int64(row))
        }
        let lines = terminal.output
        #expect(lines.count == 10, "\(lines)")
        #expect(lines.first?.hasPrefix("import-json: 100/1000 rows (10%)") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("import-json: 1000/1000 rows (100%)") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.hasSuffix("\n") && !$0.contains("\r") && !$0.contains("\u{1B}") })
    }

    @Test func aJobOfUnknownSizePrintsAtMostOneLineASecond() {
        let terminal = FakeTerminal()
        let reporter = terminal.reporter(total: nil, style: .lines)
        for row in 1...40 {
            terminal.advance(by: .milliseconds(250))
            reporter.update(completed: Int64(row))
        }
        #expect(terminal.output.count == 10, "\(terminal.output)")
        #expect(terminal.output.first?.hasPrefix("import-json: 4 rows") == true, "\(terminal.output)")
    }

    @Test func aTerminalStillGetsABarRedrawnInPlace() {
        let terminal = FakeTerminal()
        let reporter = terminal.reporter(total: 100, style: .bar)
        for row in 1...100 {
            terminal.advance(by: .milliseconds(50))
            reporter.update(completed: Int64(row))
        }
        reporter.finish()
        let draws = terminal.output.dropLast()
        #expect(draws.count >= 45 && draws.count <= 50, "one redraw every 0.1 s: \(draws.count)")
        #expect(draws.allSatisfy { $0.hasPrefix("\r\u{1B}[2K") })
        #expect(terminal.output.last?.contains("import-json: done, 100 rows") == true)
    }

    @Test func theThrottleNeedsBothTheIntervalAndTheFraction() {
        var throttle = ProgressThrottle()
        // (completed, total, elapsed, force) → due; each step starts from the state the previous one left.
        let steps: [(Int64, Int64?, Double, Bool, Bool)] = [
            (500, 1_000, 0.5, false, false),  // under a second since the start
            (500, 1_000, 1.0, false, true),
            (590, 1_000, 5, false, false),  // 9 % is not enough
            (600, 1_000, 5, false, true),
            (900, 1_000, 5.5, false, false),  // half a second is not enough
            (600, 1_000, 7, false, false),  // nothing advanced, and no heartbeat asked for
            (900, nil, 8, true, true),  // a heartbeat
            (900, nil, 8.5, true, false),  // a heartbeat still waits a second
            (901, nil, 9.5, false, true),  // unknown total: one unit and a second suffice
        ]
        for (index, (completed, total, elapsed, force, expected)) in steps.enumerated() {
            let due = throttle.lineIsDue(completed: completed, total: total, elapsed: elapsed, force: force)
            #expect(due == expected, "step \(index)")
        }
    }

    @Test(arguments: [
        (false, false, false, ProgressReporter.Style.lines), (true, false, false, .bar), (true, true, false, .silent),
        (false, false, true, .silent), (true, false, true, .silent),
    ])
    func theStyleFollowsTheTerminalAndTheOptions(
        terminal: Bool, noProgress: Bool, json: Bool, expected: ProgressReporter.Style
    ) throws {
        let options = try ProgressOptions.parse(noProgress ? ["--no-progress"] : [])
        #expect(options.style(errorIsTerminal: terminal, json: json) == expected)
    }

    @Test func jsonModeIsReadFromTheOptionsBeforeATerminator() {
        #expect(OutputMode.requestsJSON(["ls", "--json", "--database", "x"]))
        #expect(!OutputMode.requestsJSON(["ls", "--database", "x"]))
        #expect(!OutputMode.requestsJSON(["get", "--", "--json"]), "a key named --json is not the option")
    }
}
