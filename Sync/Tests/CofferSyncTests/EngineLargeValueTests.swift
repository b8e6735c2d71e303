import Coffer
import Foundation
import Testing

@testable import CofferSync

extension EngineEndToEndTests {
    /// Values of megabytes sync like small ones, and a key rotation re-seals them.
    ///
    /// Pushes, pulls and a rotation's writes are cut by bytes as well as by rows, so no
    /// statement or answer grows with the size of the rows. The default run moves
    /// 48 MiB; `STRESS=1` moves 1.1 GiB, more than PostgreSQL takes in one message, which a batch
    /// cut by rows alone sent as one push and could never get through.
    @Test func valuesOfMegabytesSyncInBoundedBatches() async throws {
        let (count, size) = Self.isStress ? (280, 4 << 20) : (24, 2 << 20)
        let devices = try await space(others: 1)
        let (a, b) = (devices[0], devices[1])
        for index in 0..<count {
            try a.set(Self.largeText(index, size: size), "large\(index)")
        }
        let engineA = try engine(a, callTimeout: .seconds(60))
        let engineB = try engine(b, callTimeout: .seconds(60))
        await engineA.start()
        await engineB.start()
        try await engineA.syncNow()
        #expect(try a.replica.queuedCount() == 0)
        try await engineB.syncNow()
        #expect(try await b.connection.read { tx in try tx.numberOfKeys(inCollection: "notes") } == count)
        for index in [0, count / 2, count - 1] {
            #expect(try b.note("large\(index)") == Note(text: Self.largeText(index, size: size)))
        }
        #expect(await engineA.currentStatus().lastError == nil)
        #expect(await engineB.currentStatus().lastError == nil)

        // A rotation re-seals every row and replaces them in one server transaction, written a
        // chunk per statement.
        try await SyncSetup.revokeDevice(try #require(try b.replica.credentials()).deviceID, from: a.replica)
        try a.set("after the rotation", "small")
        try await engineA.syncNow()
        let space = try #require(try a.replica.credentials()).spaceID
        let stored = try await SyncServerAdmin(address: try admin).spaces().first { $0.spaceID == space }
        #expect(stored?.keyEpoch == 2)
        #expect(stored?.lastSequence == Int64(2 * count + 1), "every row re-sealed, then the new one")
        await engineA.stop()
        await engineB.stop()
        try await drop(a)
    }

    /// `size` bytes of text that differ for every `index`.
    static func largeText(_ index: Int, size: Int) -> String {
        let line = "row \(index) of the large-value test, "
        return String(String(repeating: line, count: size / line.utf8.count + 1).utf8.prefix(size)) ?? line
    }
}
