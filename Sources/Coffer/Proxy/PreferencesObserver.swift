import Foundation

/// Forwards the database's commits to a ``Preferences`` instance, buffering those that arrive
/// before the instance is ready, so nothing committed after the subscription is missed.
///
/// The notification observer holds this object, never the preferences: releasing the
/// preferences releases the observer (its deinit removes it from the notification center).
final class PreferencesObserver: Sendable {
    private struct State {
        weak var target: Preferences?
        /// Changesets received before ``attach(_:)``; nil once attached.
        var buffer: [Changeset]? = []
    }

    private let state = Locked(State())

    /// Called on the database's notification queue, in commit order.
    func receive(_ changeset: Changeset) {
        // The target leaves the lock strongly held: if this is its last reference, its deinit
        // (a hand-off, removing the observer) must not run under this lock.
        let target = state.withLock { state -> Preferences? in
            guard state.buffer == nil else {
                state.buffer?.append(changeset)
                return nil
            }
            // Enqueued under the lock, so the delivery order is the commit order.
            let target = state.target
            target?.enqueue(changeset)
            return target
        }
        withExtendedLifetime(target) {}
    }

    /// Starts forwarding to `target`, after the changesets buffered so far.
    func attach(_ target: Preferences) {
        state.withLock { state in
            state.target = target
            for changeset in state.buffer ?? [] { target.enqueue(changeset) }
            state.buffer = nil
        }
    }
}
