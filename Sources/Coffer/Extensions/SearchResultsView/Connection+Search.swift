/// Searching as the user types, with Swift concurrency.
extension Connection {
    /// Shows the results of `query` in the search view `viewName`, abandoning the search of every
    /// query given earlier through `queue` (YapDatabase's `abortSearchInProgressAndRollback:`
    /// followed by `performSearchWithQueue:`).
    ///
    /// ```swift
    /// let queue = SearchQueue()
    /// for await text in searchFieldChanges {
    ///     Task { try await connection.search(text, inView: "noteResults", queue: queue) }
    /// }
    /// ```
    ///
    /// An earlier search still running rolls back at its next check, and searches still waiting
    /// are skipped, so a burst of keystrokes costs about one search. When this returns, the view
    /// shows the results of `query` or of a query given after it. Cancelling the calling task
    /// abandons this query's search (rolled back) unless a later one already replaced it.
    /// - Throws: ``DatabaseError`` as ``SearchResultsViewTransaction/performSearch(for:)``,
    ///   `.extensionFailure` when `viewName` is not a search view, or `.cancelled` when the
    ///   calling task was cancelled.
    public func search(_ query: String, inView viewName: String, queue: SearchQueue) async throws {
        queue.abortSearchInProgress(rollback: true)
        let ticket = queue.enqueueTicket(query)
        try await withTaskCancellationHandler {
            _ = try await readWrite { tx in
                try tx.extension(viewName, as: SearchResultsViewTransaction.self).performSearch(with: queue)
            }
        } onCancel: {
            queue.abandon(through: ticket)
        }
        // The query stays out of the message: it is what the user typed.
        if Task.isCancelled {
            throw DatabaseError(.cancelled, "the search in view \"\(viewName)\" was cancelled")
        }
    }
}
