import Foundation

/// The `Progress` handed to a backup: forwards each page step to a ``ProgressReporter`` and
/// turns Ctrl-C into `cancel()`, which the library checks after every step.
///
/// Overriding `completedUnitCount` gives a synchronous callback on the backup's own queue, so
/// cancellation takes effect at the very next step (Foundation's KVO is not available on Linux).
// Safety: Foundation declares `Progress` `@unchecked Sendable` and subclasses must restate it;
// the only state added here is an immutable reference to a `Sendable` reporter.
final class BackupProgress: Progress, @unchecked Sendable {
    private let reporter: ProgressReporter

    /// Creates a progress reporting to `reporter`.
    init(reporter: ProgressReporter) {
        self.reporter = reporter
        super.init(parent: nil, userInfo: nil)
        totalUnitCount = 1
    }

    override var completedUnitCount: Int64 {
        didSet {
            reporter.update(completed: completedUnitCount, total: totalUnitCount)
            if Interruption.shared.isRequested { cancel() }
            if oldValue < totalUnitCount && completedUnitCount >= totalUnitCount {
                DebugPause.verification.pauseIfRequested()
            }
        }
    }
}
