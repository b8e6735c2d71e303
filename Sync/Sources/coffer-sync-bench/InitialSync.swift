import CofferSync
import Foundation

/// S1: device A uploads `rows` rows it already holds; then a new, empty device B pulls them all.
struct InitialSync {
    /// The space the devices belong to.
    let space: BenchSpace
    /// Where the figures go.
    let report: BenchReport
    /// The rows A holds before syncing.
    let rows: Int

    /// Runs the workload and prints its figures.
    func run() async throws {
        let clock = ContinuousClock()
        let a = try await space.newDevice()
        let written = try clock.measure { try a.write(writer: 0, first: 0, count: rows, perTransaction: 1_000) }
        report.figure(
            "S1-local-write",
            [
                ("ops_per_s", BenchReport.rate(rows, written)), ("total_s", BenchReport.seconds(written)),
                ("rows", "\(rows)"), ("rows_per_tx", "1000"),
            ])
        try probePhases(a)

        // Uploading is done when the server's last sequence covers every row; read over a
        // connection of A's own (reading A's queue length would decode the whole queue each time).
        guard let credentials = try a.replica.credentials() else {
            throw BenchFailure(description: "S1: device A holds no credentials")
        }
        let probe = try await SyncServerConnection.connect(
            to: credentials.serverAddress, space: credentials.spaceID, logger: space.logger)
        let uploadStart = clock.now
        await a.engine.start()
        let uploaded = try await waitUntil(timeout: .seconds(600)) {
            try await probe.space().lastSequence >= Int64(rows)
        }
        let upload = clock.now - uploadStart
        await probe.close()
        guard uploaded else { throw BenchFailure(description: "S1: device A did not finish uploading within 600 s") }
        try await a.engine.syncNow()
        let roundA = clock.now - uploadStart

        let b = try await space.newDevice()
        let pullStart = clock.now
        await b.engine.start()
        try await b.engine.syncNow()
        let pull = clock.now - pullStart
        let received = try b.count()
        guard received == rows else {
            throw BenchFailure(description: "S1: device B holds \(received) rows, expected \(rows)")
        }
        let status = await b.engine.currentStatus()
        let uploadBatch = await a.engine.uploadBatchSize
        let pullBatch = await b.engine.pullBatchSize
        report.figure(
            "S1-upload",
            [
                ("ops_per_s", BenchReport.rate(rows, upload)), ("total_s", BenchReport.seconds(upload)),
                ("rows", "\(rows)"), ("batch", "\(uploadBatch)"),
            ])
        report.figure(
            "S1-upload-round",
            [
                ("ops_per_s", BenchReport.rate(rows, roundA)), ("total_s", BenchReport.seconds(roundA)),
                ("rows", "\(rows)"), ("note", "until_A's_syncNow_returned(upload+pulling_its_own_rows_back)"),
            ])
        report.figure(
            "S1-pull",
            [
                ("ops_per_s", BenchReport.rate(rows, pull)), ("total_s", BenchReport.seconds(pull)),
                ("rows", "\(rows)"), ("batch", "\(pullBatch)"), ("cursor", "\(status.cursor)"),
            ])
        let total = upload + pull
        report.figure(
            "S1-total",
            [
                ("ops_per_s", BenchReport.rate(rows, total)), ("total_s", BenchReport.seconds(total)),
                ("rows", "\(rows)"), ("target_s", "30"), ("met", total <= .seconds(30) ? "yes" : "no"),
            ])
        report.load("after S1")
    }

    /// Times the local steps the uploader repeats per batch, before any sync.
    ///
    /// With the whole queue waiting: reading the queue (`queuedCount`) and preparing one batch
    /// of 500 (reads the queue and seals the rows). Read-only: nothing is completed or sent.
    func probePhases(_ a: BenchDevice) throws {
        guard let credentials = try a.replica.credentials() else { return }
        let clock = ContinuousClock()
        var queued = 0
        let count = try clock.measure { queued = try a.replica.queuedCount() }
        let sealer = RowSealer(syncKey: credentials.syncKey, spaceID: credentials.spaceID)
        var prepared = 0
        let prepare = try clock.measure {
            prepared = try a.replica.prepareUploads(sealer: sealer, deviceID: credentials.deviceID, limit: 500)
                .uploads.count
        }
        report.figure(
            "S1-phase-queue-read",
            [("total_s", BenchReport.seconds(count)), ("queued", "\(queued)"), ("note", "one_queuedCount()")])
        report.figure(
            "S1-phase-prepare-batch",
            [
                ("total_s", BenchReport.seconds(prepare)), ("rows", "\(prepared)"), ("queued", "\(queued)"),
                ("note", "one_prepareUploads(limit:500)_with_the_whole_queue_waiting"),
            ])
    }
}
