import Foundation

extension ConcurrentRun {
    /// The commit rate of both writers in W10f, C's and Coffer's alike.
    ///
    /// W10's writers commit as fast as they can, and C's waits on its inline checkpoints' fsyncs while Coffer's
    /// never does, so W10 compares readers beside two different loads; W10f gives both the same one.
    static let fixedCommitsPerSecond = 1000

    /// `step` run on a fixed schedule of `perSecond` calls a second: each call waits for its slot first.
    ///
    /// A writer that fell more than ten slots behind (a descheduled thread) starts a new schedule from now instead
    /// of catching up in a burst, so the rate the readers see stays the fixed one.
    static func paced(perSecond: Int, _ step: @escaping Step) -> Step {
        let clock = ContinuousClock()
        let interval = Duration.seconds(1) / perSecond
        var next = clock.now
        return {
            let now = clock.now
            if next > now {
                let wait = next - now
                Thread.sleep(
                    forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
            } else if now - next > interval * 10 {
                next = now
            }
            next += interval
            return try step()
        }
    }
}
