import Foundation

/// Rebuilding the non-persistent extensions after another process changed rows
/// (``DatabaseOptions/multiProcessSupport``): what they keep in memory cannot follow commits this
/// process did not make.
extension Database {
    /// Queues one rebuild of every registered non-persistent extension on the extension queue,
    /// unless one is queued and not started yet.
    ///
    /// The rebuild is a commit of its own that changes no row: other processes move their
    /// numbers past it without a reset, so two processes never rebuild in turn for ever.
    func scheduleMemoryExtensionRebuild() {
        guard extensions.withLock({ $0.entries.contains { !$0.implementation.isPersistent } }) else { return }
        let alreadyQueued = memoryExtensionRebuildQueued.withLock { queued in
            defer { queued = true }
            return queued
        }
        guard !alreadyQueued else { return }
        extensionQueue.async { [weak self] in
            guard let self else { return }
            // A reset from here on needs a rebuild after this one: this one may read before it.
            memoryExtensionRebuildQueued.withLock { $0 = false }
            guard !gate.isClosed else { return }
            do {
                let connection = try newConnection()
                try connection.readWrite { tx in try tx.reinstallMemoryExtensions() }
            } catch {
                logger.warning(
                    "Coffer: could not rebuild the non-persistent extensions after another process's commit",
                    metadata: ["path": "\(url.path)", "error": "\(error)"])
            }
        }
    }
}
