public import Foundation

/// Reachability from the state of the machine's network interfaces, as Linux reports them in
/// `/sys/class/net`: reachable while an interface other than loopback is up.
///
/// An interface that is up says the machine has a link, not that a server answers; it spares
/// items that need the network the certain failures of a machine without one. The interfaces
/// are read again every ``interval`` seconds by a task of its own (one directory listing and a
/// small file per interface), while someone observes; ``refresh()`` reads them at once.
public final class InterfaceReachability: NetworkReachability {
    private struct State {
        var isReachable: Bool
        var observers: [UInt64: @Sendable (Bool) -> Void] = [:]
        var nextID: UInt64 = 0
        var poller: Task<Void, Never>?
    }

    /// The directory listing the interfaces (`/sys/class/net` on Linux).
    public let directory: URL
    /// Seconds between two reads of the interfaces while observed.
    public let interval: TimeInterval
    private let state: Locked<State>

    /// Reachability from the interfaces listed in `directory`, read every `interval` seconds.
    ///
    /// - Parameters:
    ///   - directory: Where the interfaces are listed, each a folder holding `operstate` and `carrier` files.
    ///   - interval: Seconds between two reads while observed.
    public init(directory: URL = URL(fileURLWithPath: "/sys/class/net"), interval: TimeInterval = 2) {
        self.directory = directory
        self.interval = interval
        state = Locked(State(isReachable: Self.readInterfaces(in: directory)))
    }

    deinit {
        state.withLock { $0.poller }?.cancel()
    }

    /// Whether an interface other than loopback was up when last read.
    public var isReachable: Bool { state.withLock { $0.isReachable } }

    /// Reads the interfaces now, and tells the observers when the answer changed.
    public func refresh() {
        let reachable = Self.readInterfaces(in: directory)
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.isReachable != reachable else { return [] }
            state.isReachable = reachable
            return Array(state.observers.values)
        }
        for observer in observers { observer(reachable) }
    }

    /// Calls `onChange` whenever a read of the interfaces changes the answer; the first observer
    /// starts the periodic reads and the last one to cancel stops them.
    public func observe(_ onChange: @escaping @Sendable (Bool) -> Void) -> ActionCancellable {
        let interval = interval
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = onChange
            if state.poller == nil {
                state.poller = Task.detached { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(interval))
                        guard let self else { return }
                        self.refresh()
                    }
                }
            }
            return id
        }
        return ActionCancellable { [state] in
            let poller = state.withLock { state -> Task<Void, Never>? in
                state.observers[id] = nil
                guard state.observers.isEmpty else { return nil }
                defer { state.poller = nil }
                return state.poller
            }
            poller?.cancel()
        }
    }

    /// Whether an interface listed in `directory`, loopback aside, is up: `operstate` says `up`,
    /// or `unknown` (drivers that do not report it) with `carrier` 1.
    static func readInterfaces(in directory: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.contains { name in
            guard name != "lo" else { return false }
            let folder = directory.appendingPathComponent(name)
            switch read("operstate", in: folder) {
            case "up": return true
            case "unknown": return read("carrier", in: folder) == "1"
            default: return false
            }
        }
    }

    private static func read(_ file: String, in folder: URL) -> String? {
        // A virtual interface that goes away between the listing and the read is simply not up.
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(file).path) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
