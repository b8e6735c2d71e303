import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a command moves into place as its last step, and how to take that step back when
/// a Ctrl-C came before the command's point of no return (``Interruption/commit(_:)``).
///
/// A file already at the destination is kept under a second, hidden name — a hard link,
/// `.<name>.coffer-previous-<UUID>` beside it — until ``keep()``: keeping it copies nothing, the
/// destination never goes missing meanwhile, and ``undo()`` can put it back.
final class UndoableOutput: Sendable {
    /// Where the command's output goes.
    let url: URL
    /// The hidden second name of the file that was at `url`, if there was one and it could be linked.
    private let previous: URL?
    private let replacing: Bool
    private let placed = Atomic<Bool>(false)

    /// Prepares to write `url`, keeping the file that is there now.
    init(_ url: URL) {
        self.url = url
        replacing = FileManager.default.fileExists(atPath: url.path)
        let second = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).coffer-previous-\(UUID().uuidString)")
        // Without hard links (some file systems) a late Ctrl-C cannot bring the old file back.
        previous = replacing && link(url.path, second.path) == 0 ? second : nil
    }

    /// Records that the new file is at ``url`` now.
    func markPlaced() {
        placed.store(true, ordering: .releasing)
    }

    /// Puts the destination back as it was before the command.
    ///
    /// Safe to call from the Ctrl-C handler and more than once.
    /// - Returns: False when the file that was replaced could not be kept and is gone.
    @discardableResult
    func undo() -> Bool {
        guard placed.load(ordering: .acquiring) else {
            keep()
            return true
        }
        guard let previous else {
            _ = unlink(url.path)
            return !replacing
        }
        _ = rename(previous.path, url.path)
        // rename(2) does nothing when both names already lead to the same file.
        _ = unlink(previous.path)
        return true
    }

    /// Lets the command's result stand: drops the hidden name of the replaced file.
    func keep() {
        if let previous { _ = unlink(previous.path) }
    }
}
