import Foundation

/// Testing aid: points where `coffer` stops and waits for Ctrl-C when the environment variable
/// `COFFER_DEBUG_PAUSE_AT` names one, so a test can interrupt a command at a known moment
/// instead of racing it.
///
/// `--debug-pause-after N` (``ProgressOptions``) pauses after N units of progress; these points
/// are the ones no unit count reaches.
enum DebugPause: String {
    /// `backup`: the copy's last page is written and Ctrl-C was checked for; the library verifies
    /// the copy, fsyncs it and moves it into place next, without checking again.
    case verification
    /// Any long command: just after its point of no return (``Interruption/commit(_:)``).
    case commit

    /// The environment variable that names the point.
    static let variable = "COFFER_DEBUG_PAUSE_AT"

    /// Waits (up to a minute) for the next Ctrl-C when the environment asks to pause here.
    func pauseIfRequested() {
        guard ProcessInfo.processInfo.environment[Self.variable] == rawValue else { return }
        Interruption.shared.waitForSignal()
    }
}
