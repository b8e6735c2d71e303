import CofferSQLite

/// The connection's part in ``Database`` closing (see `Database.close(timeout:)`).
extension Connection {
    /// Ends a long-lived read transaction on the connection's queue, after what is queued there:
    /// it holds the access gate, so the close cannot go on while it is open.
    ///
    /// The changesets it would have returned are kept for the next begin, as when a read-write
    /// transaction ends it, in case the close then fails.
    func endLongLivedReadBeforeClose() {
        queue.async { [self] in
            guard core.inLongLivedRead else { return }
            database.logger.notice(
                "Coffer: close() ended a long-lived read transaction", metadata: ["connection": "\(id)"])
            core.stashedChangesets += core.endLongLivedRead(self)
        }
    }

    /// Closes the connection's handle once the database is closed, on its queue (where every
    /// other use of the handle happens); what is queued there fails with `.closed` by then.
    func closeHandleAfterClose() {
        queue.sync { core.sqlite.close() }
    }
}
