/// Tells an ``ActionManager`` whether the network can be reached, so that items that need it
/// wait for it instead of failing (YapDatabase's reachability).
///
/// Coffer provides ``AlwaysReachable`` (the default), ``InterfaceReachability`` (whether a
/// network interface other than loopback is up, read from `/sys/class/net`), and
/// ``ManualReachability`` (for tests, or for an app that learns reachability its own way and
/// reports it).
public protocol NetworkReachability: Sendable {
    /// Whether the network can be reached now.
    var isReachable: Bool { get }

    /// Calls `onChange` with the new answer whenever it changes, until cancelled.
    ///
    /// `onChange` may run on any thread and must not block.
    func observe(_ onChange: @escaping @Sendable (_ isReachable: Bool) -> Void) -> ActionCancellable
}

/// Reports the network reachable, always.
public struct AlwaysReachable: NetworkReachability {
    /// Always reachable.
    public init() {}

    /// True.
    public var isReachable: Bool { true }

    /// Never calls `onChange`: the answer never changes.
    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> ActionCancellable {
        ActionCancellable {}
    }
}

extension NetworkReachability where Self == AlwaysReachable {
    /// Reports the network reachable, always.
    public static var always: AlwaysReachable { AlwaysReachable() }
}

/// Reachability set by hand: tests, or an app that reports what it learns.
public final class ManualReachability: NetworkReachability {
    private struct State {
        var isReachable: Bool
        var observers: [UInt64: @Sendable (Bool) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    /// Reachability starting at `isReachable`.
    public init(isReachable: Bool = true) {
        state = Locked(State(isReachable: isReachable))
    }

    /// The answer last set.
    public var isReachable: Bool { state.withLock { $0.isReachable } }

    /// Sets the answer, and tells the observers when it changed (on the calling thread, before returning).
    public func set(reachable: Bool) {
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.isReachable != reachable else { return [] }
            state.isReachable = reachable
            return Array(state.observers.values)
        }
        for observer in observers { observer(reachable) }
    }

    /// Calls `onChange` whenever ``set(reachable:)`` changes the answer.
    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> ActionCancellable {
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = onChange
            return id
        }
        return ActionCancellable { [state] in _ = state.withLock { $0.observers.removeValue(forKey: id) } }
    }
}
