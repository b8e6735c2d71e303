/// The queries a search field typed, of which a ``SearchResultsView`` runs only the latest
/// (YapDatabase's `YapDatabaseSearchQueue`).
///
/// ```swift
/// let queue = SearchQueue()
/// // On every keystroke:
/// queue.enqueue(field.text)
/// connection.asyncReadWrite { tx in
///     try tx.extension("noteResults", as: SearchResultsViewTransaction.self).performSearch(with: queue)
/// }
/// ```
///
/// When typing outpaces searching, the queries typed meanwhile are skipped: the next search runs
/// the newest. ``abortSearchInProgress(rollback:)`` abandons the searches of every query enqueued
/// so far, which is how clearing the field stops a slow search at once. Safe to use from any thread.
public final class SearchQueue: Sendable {
    private struct State {
        var queries: [(query: String, ticket: UInt64)] = []
        var nextTicket: UInt64 = 1
        /// Searches of queries with a ticket up to this one are abandoned.
        var abandonedThrough: UInt64 = 0
        var rollback = false
    }

    /// What a search that was abandoned does with its transaction.
    enum AbortRequest {
        /// Roll the whole transaction back.
        case rollback
        /// Commit the results found so far.
        case keepPartialResults
    }

    private let state = Locked(State())

    /// An empty queue.
    public init() {}

    /// Adds `query`, the search field's new text, to the queue.
    public func enqueue(_ query: String) {
        _ = enqueueTicket(query)
    }

    /// Adds `query` and returns its ticket, for abandoning it alone later.
    func enqueueTicket(_ query: String) -> UInt64 {
        state.withLock { state in
            let ticket = state.nextTicket
            state.queries.append((query, ticket))
            state.nextTicket += 1
            return ticket
        }
    }

    /// Abandons, rolling back, the searches of the queries up to `ticket` (not those enqueued after it).
    func abandon(through ticket: UInt64) {
        state.withLock { state in
            guard ticket > state.abandonedThrough else { return }
            state.abandonedThrough = ticket
            state.rollback = true
        }
    }

    /// The queries waiting, oldest first.
    public var enqueuedQueries: [String] {
        state.withLock { $0.queries.map(\.query) }
    }

    /// The number of queries waiting: 0 once a search took the latest.
    public var enqueuedQueryCount: Int {
        state.withLock { $0.queries.count }
    }

    /// Abandons the search of every query enqueued so far, running or waiting
    /// (YapDatabase's `abortSearchInProgressAndRollback:`).
    ///
    /// A running search stops at its next check; with `rollback` its transaction rolls back and
    /// the view keeps its previous results, without it the results found so far commit. Enqueue
    /// a query afterwards to run it next.
    public func abortSearchInProgress(rollback: Bool) {
        state.withLock { state in
            state.abandonedThrough = state.nextTicket - 1
            state.rollback = rollback
        }
    }

    /// Takes the latest query, dropping the ones before it; nil when none waits.
    func takeLatest() -> (query: String, ticket: UInt64)? {
        state.withLock { state in
            defer { state.queries = [] }
            return state.queries.last
        }
    }

    /// Whether the search of the query with `ticket` was abandoned, and how.
    func abortRequest(for ticket: UInt64) -> AbortRequest? {
        state.withLock { state in
            guard ticket <= state.abandonedThrough else { return nil }
            return state.rollback ? .rollback : .keepPartialResults
        }
    }
}
