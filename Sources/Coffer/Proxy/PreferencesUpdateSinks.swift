/// The ``Preferences/updates(for:)`` sequences of one instance, each fed after every announced change.
///
/// A class kept in the instance's state, so that releasing the instance releases it, and its
/// deinit ends every sequence still running, as the instance's deinit ends ``Preferences/changes``.
/// Used only under the state lock, except for `deinit`, which no other thread can overlap.
final class PreferencesUpdateSinks {
    /// One running sequence.
    struct Sink {
        /// Called on the delivery queue with every announced change, outside the state lock.
        let deliver: @Sendable (PreferencesChange) -> Void
        /// Ends the sequence.
        let finish: @Sendable () -> Void
    }

    private(set) var sinks: [UInt64: Sink] = [:]
    private var nextID: UInt64 = 1

    /// Adds a sink and returns its identifier (for ``remove(_:)``).
    func add(_ sink: Sink) -> UInt64 {
        let id = nextID
        nextID += 1
        sinks[id] = sink
        return id
    }

    /// Removes the sink `id` (its sequence ended).
    func remove(_ id: UInt64) {
        sinks[id] = nil
    }

    deinit {
        for sink in sinks.values { sink.finish() }
    }
}
