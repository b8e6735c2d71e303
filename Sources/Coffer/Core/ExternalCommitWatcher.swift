import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes a database up when another process may have committed, so observers hear of it while
/// this process is idle (``DatabaseOptions/multiProcessSupport``).
///
/// On Linux it watches the database's directory with inotify for writes to the file and its
/// write-ahead log (the log is truncated and created again, so the directory is watched rather
/// than the file; the shared-memory index changes through `mmap` and raises no events). This
/// process's own commits change the log too: the check finds the number it knows and does
/// nothing. Where inotify is not available it polls. Checks are at least
/// ``minimumInterval`` apart, so a burst of commits costs one check per interval.
final class ExternalCommitWatcher: @unchecked Sendable {
    // Safety: `source`, `lastCheck` and `checkScheduled` are used only on `queue`; `check` is
    // `Sendable`.
    private let queue = DispatchQueue(label: "coffer.database.external-commits")
    /// Set on `queue`: the last reference to the database can go inside a check, and its
    /// close then stops the watcher from the watcher's own queue.
    private let onQueue = DispatchSpecificKey<Bool>()
    private var source: (any DispatchSourceProtocol)?
    private var lastCheck = ContinuousClock.now - .seconds(1)
    private var checkScheduled = false
    private let check: @Sendable () -> Void
    /// The shortest time between two checks.
    static let minimumInterval: Duration = .microseconds(500)

    /// How the watcher learns of changes.
    enum Mode: Equatable {
        /// inotify events on the database's directory.
        case inotify
        /// A timer firing every interval.
        case polling(Duration)
    }

    /// How this watcher learns of changes.
    let mode: Mode

    /// Starts watching the file at `path`, calling `check` (on the watcher's queue) after changes.
    init(path: String, pollInterval: Duration, check: @escaping @Sendable () -> Void) {
        self.check = check
        queue.setSpecific(key: onQueue, value: true)
        #if canImport(Glibc)
            if let source = Self.inotifySource(path: path, queue: queue) {
                let name = (path as NSString).lastPathComponent
                self.names = [name, name + "-wal"]
                self.mode = .inotify
                self.source = source
                source.setEventHandler { [weak self] in self?.readEvents() }
                source.resume()
                return
            }
        #endif
        self.mode = .polling(pollInterval)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let milliseconds = max(
            1,
            Int(pollInterval.components.seconds) * 1_000
                + Int(pollInterval.components.attoseconds / 1_000_000_000_000_000))
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler { [weak self] in self?.runCheck() }
        source = timer
        timer.resume()
    }

    /// Stops watching and waits for a check in progress (unless called from that check).
    func stop() {
        if DispatchQueue.getSpecific(key: onQueue) == nil {
            queue.sync(execute: cancelSource)
        } else {
            cancelSource()
        }
    }

    private func cancelSource() {
        source?.cancel()
        source = nil
    }

    deinit {
        source?.cancel()
    }

    /// Runs the check now, or once the minimum interval since the last one has passed.
    private func scheduleCheck() {
        guard !checkScheduled else { return }
        let wait = lastCheck + Self.minimumInterval - ContinuousClock.now
        guard wait > .zero else { return runCheck() }
        checkScheduled = true
        let microseconds = Int(wait.components.attoseconds / 1_000_000_000_000) + 1
        queue.asyncAfter(deadline: .now() + .microseconds(microseconds)) { [weak self] in
            guard let self, self.source != nil else { return }
            self.checkScheduled = false
            self.runCheck()
        }
    }

    private func runCheck() {
        lastCheck = .now
        check()
    }

    #if canImport(Glibc)
        /// The names (the file's and its log's) whose changes matter.
        private var names: Set<String> = []

        /// A read source on an inotify descriptor watching `path`'s directory, or nil when
        /// inotify is not available (then the watcher polls).
        private static func inotifySource(path: String, queue: DispatchQueue) -> (any DispatchSourceRead)? {
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let directory = (path as NSString).deletingLastPathComponent
            let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE)
            guard inotify_add_watch(fd, directory.isEmpty ? "." : directory, mask) >= 0 else {
                close(fd)
                return nil
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setCancelHandler { close(fd) }
            return source
        }

        /// Reads every pending event and checks once if one concerns the database's files.
        private func readEvents() {
            guard let source = source as? any DispatchSourceRead else { return }
            let fd = Int32(source.handle)
            var buffer = [UInt8](repeating: 0, count: 4096)
            var relevant = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                relevant = relevant || Self.mentions(buffer[0..<count], names: names)
            }
            if relevant { scheduleCheck() }
        }

        /// Whether an event in `bytes` (a run of `inotify_event`s) names one of `names`.
        static func mentions(_ bytes: ArraySlice<UInt8>, names: Set<String>) -> Bool {
            let header = MemoryLayout<inotify_event>.size
            var offset = bytes.startIndex
            while offset + header <= bytes.endIndex {
                let length = bytes[(offset + 12)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
                let nameStart = offset + header
                let nameEnd = min(nameStart + length, bytes.endIndex)
                let name = String(decoding: bytes[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
                if names.contains(name) { return true }
                offset = nameEnd
            }
            return false
        }
    #endif
}
