import Coffer
import Foundation
import Logging

extension SyncEngine {
    /// The loop: a round whenever woken, a wait, and reconnection with back-off after failures.
    func run() async {
        while !Task.isCancelled {
            let waiting = roundWaiters.count
            do {
                status.lastError = nil
                try await round()
                status.phase = .idle
                retryDelay = .milliseconds(200)
                let finished = Array(roundWaiters.prefix(waiting))
                roundWaiters.removeFirst(finished.count)
                for waiter in finished { waiter.resume() }
                await wake.wait(timeout: pollInterval)
            } catch {
                // Stopping cancels the round: not a failure to report.
                if Task.isCancelled { return }
                let failure = Self.syncError(error)
                status.lastError = failure
                let finished = Array(roundWaiters.prefix(waiting))
                roundWaiters.removeFirst(finished.count)
                for waiter in finished { waiter.resume(throwing: failure) }
                if Self.isPermanent(failure) {
                    logger.error("sync stopped", metadata: ["error": "\(failure.localizedDescription)"])
                    status.phase = .failed
                    await disconnect()
                    finishWaiters(with: failure)
                    return
                }
                logger.warning("sync round failed; retrying", metadata: ["error": "\(failure.localizedDescription)"])
                status.phase = .offline
                await disconnect()
                await wake.wait(timeout: retryDelay)
                retryDelay = min(retryDelay * 2, .seconds(30))
            }
        }
    }

    /// Errors that retrying cannot fix: the engine stops and reports them.
    static func isPermanent(_ error: SyncError) -> Bool {
        switch error {
        case .syncKeyMismatch, .deviceRevoked, .schemaVersionMismatch, .spaceNotFound, .authenticationFailed,
            .misuse:
            true
        default: false
        }
    }

    static func syncError(_ error: any Error) -> SyncError {
        if let error = error as? SyncError { return error }
        // Codes only: Coffer's messages may name a row's collection and key.
        if let error = error as? DatabaseError { return .localDatabase(code: error.code.rawValue) }
        if error is CloudCoreError { return .localDatabase(code: "cloudCore") }
        return .server(code: "client", message: "\(type(of: error))")
    }

    /// Connects if needed, checks the space and key, then uploads and pulls until both are done.
    func round() async throws {
        let transport = try await connected()
        status.phase = .syncing
        let space = try await call("reading the space") { try await transport.space() }
        try await followEpoch(space, transport)
        // A rotation changes the channel: listen on the new one.
        if space.channel != listenChannel { try await listen(on: space.channel, transport) }
        status.serverSequence = space.lastSequence
        try await uploadAll(transport)
        try await pullAll(transport)
    }

    func connected() async throws -> any SyncTransport {
        if let transport { return transport }
        status.phase = .connecting
        let (makeTransport, credentials) = (makeTransport, credentials)
        let transport = try await call("connecting") { try await makeTransport(credentials) }
        // Kept from here on, so that a failure below closes it (`disconnect()`).
        self.transport = transport
        let space = try await call("reading the space") { try await transport.space() }
        try await followEpoch(space, transport)
        logger.info(
            "sync connected",
            metadata: ["space": "\(credentials.spaceID.uuidString)", "epoch": "\(credentials.syncKey.epoch)"])
        try await listen(on: space.channel, transport)
        return transport
    }

    /// Replaces the listener by one on `channel`.
    func listen(on channel: String, _ transport: any SyncTransport) async throws {
        listenTask?.cancel()
        let stream = try await call("listening") { try await transport.wakeUps(channel: channel) }
        let wake = wake
        listenTask = Task { for await _ in stream { wake.signal() } }
        listenChannel = channel
    }

    /// Checks the device's key against the space's, following a rotation to the new key.
    ///
    /// After a rotation it opens the new epoch's key and starts over from cursor 0. Nothing is
    /// written before the check passes.
    func followEpoch(_ space: SpaceState, _ transport: any SyncTransport) async throws {
        if space.keyEpoch == credentials.syncKey.epoch {
            guard SpaceCheck.matches(space.keyCheck, syncKey: credentials.syncKey, spaceID: credentials.spaceID) else {
                throw SyncError.syncKeyMismatch(space: credentials.spaceID, epoch: space.keyEpoch)
            }
            return
        }
        let device = credentials.deviceID
        guard space.keyEpoch > credentials.syncKey.epoch,
            let sealed = try await call(
                "reading the sealed key", { try await transport.sealedKey(epoch: space.keyEpoch, device: device) })
        else { throw SyncError.syncKeyMismatch(space: credentials.spaceID, epoch: space.keyEpoch) }
        let key = try SyncKeySealing.open(
            sealed, with: credentials.deviceKey, spaceID: credentials.spaceID, deviceID: credentials.deviceID,
            epoch: space.keyEpoch)
        guard SpaceCheck.matches(space.keyCheck, syncKey: key, spaceID: credentials.spaceID) else {
            throw SyncError.syncKeyMismatch(space: credentials.spaceID, epoch: space.keyEpoch)
        }
        var updated = credentials
        updated.syncKey = key
        let newSealer = RowSealer(syncKey: key, spaceID: credentials.spaceID)
        try replica.adoptEpoch(updated, sealer: newSealer)
        credentials = updated
        sealer = newSealer
        logger.notice("sync key rotated; pulling the space again", metadata: ["epoch": "\(key.epoch)"])
    }

    func uploadAll(_ transport: any SyncTransport) async throws {
        while true {
            let prepared = try replica.prepareUploads(
                sealer: sealer, deviceID: credentials.deviceID, limit: uploadPreparationSize,
                byteLimit: uploadPreparationBytes)
            if prepared.isEmpty { return }
            for batch in prepared.chunked(uploadBatchSize, bytes: uploadBatchBytes) {
                try await push(batch, transport)
            }
        }
    }

    /// Pushes one batch and settles it locally.
    private func push(_ batch: UploadBatch, _ transport: any SyncTransport) async throws {
        status.inFlight = batch.uploads.count
        defer { status.inFlight = 0 }
        let uploads = batch.uploads
        let outcomes = uploads.isEmpty ? [] : try await call("pushing") { try await transport.push(uploads) }
        guard outcomes.count == batch.uploads.count else {
            throw SyncError.server(code: "protocol", message: "the server answered a push with the wrong count")
        }
        let report = try replica.finish(batch, outcomes: outcomes, sealer: sealer)
        report.rejected.forEach(reportRejected)
        let accepted = outcomes.contains { if case .accepted = $0 { true } else { false } }
        // A server answering every push with a conflict this device cannot merge (a version
        // it already holds, or a refused row) would otherwise keep this loop going.
        guard accepted || report.applied > 0 || batch.uploads.isEmpty else {
            throw SyncError.server(code: "conflict", message: "the server refused every push without a newer row")
        }
        logger.debug("sync pushed", metadata: ["rows": "\(batch.uploads.count)"])
    }

    func pullAll(_ transport: any SyncTransport) async throws {
        while true {
            let cursor = try replica.cursor()
            let limit = pullBatchSize
            let rows = try await call("pulling") { try await transport.pull(after: cursor, limit: limit) }
            if rows.isEmpty {
                status.lastPull = Date()
                status.cursor = cursor
                return
            }
            let report = try replica.apply(rows, sealer: sealer)
            report.rejected.forEach(reportRejected)
            status.cursor = try replica.cursor()
            status.serverSequence = max(status.serverSequence, status.cursor)
            logger.debug("sync pulled", metadata: ["rows": "\(rows.count)", "cursor": "\(status.cursor)"])
        }
    }

    /// One server call, bounded by ``callTimeout``; `name` says in a timeout's error which call it was.
    func call<T: Sendable>(_ name: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withDeadline(callTimeout, server: "\(credentials.host):\(credentials.port)", name: name, operation)
    }

    func reportRejected(_ error: SyncError) {
        status.rejectedRows += 1
        status.lastRejection = error
        logger.error("sync rejected a row from the server", metadata: ["error": "\(error.localizedDescription)"])
    }
}
