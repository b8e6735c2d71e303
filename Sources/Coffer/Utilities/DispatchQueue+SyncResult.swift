import Dispatch

extension DispatchQueue {
    /// Runs `body` on the queue with `sync` and returns its result or throws its error.
    ///
    /// Goes straight to the non-generic `sync(execute:)`: the generic, rethrowing overload wraps
    /// the block in Dispatch's `_syncHelper`, which allocates two closure contexts per call. The
    /// result waits in an allocation of one `T` rather than in a `T?` or a `Result`, whose generic
    /// metadata an unspecialized caller would look up at run time on every call (as
    /// `withUnsafeTemporaryAllocation` does for its own `Result`).
    /// - Throws: whatever `body` throws.
    func syncResult<T>(_ body: () throws -> T) throws -> T {
        let slot = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { slot.deallocate() }
        var failure: (any Error)?
        var produced = false
        sync {
            do {
                slot.initialize(to: try body())
                produced = true
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        // `sync` always runs its block before it returns.
        guard produced else { throw DatabaseError(.misuse, "a synchronous block did not run on its queue") }
        return slot.move()
    }
}
