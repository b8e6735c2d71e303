import Foundation

/// Decides a push batch against the stored versions, in request order, as if each request
/// were its own transaction: what to write, which sequence numbers to assign, what conflicts.
///
/// Pure, so that the rules are testable without a server; `SyncServerConnection.push` feeds it
/// the locked versions and writes what it decides.
struct PushPlan {
    /// One outcome per request, in order; a conflict with a row still to be read from the
    /// server is `.conflictWithStored`.
    enum Decision: Equatable {
        case accepted(sequence: Int64)
        case conflictWith(ServerRow)
        case conflictWithStored(rowID: Data)
    }

    /// Per request, what happened to it.
    private(set) var decisions: [Decision] = []
    /// The rows to write, the last accepted version of each row id, with their sequence numbers.
    private(set) var writes: [ServerRow] = []
    /// The space's last sequence number after the batch.
    private(set) var lastSequence: Int64

    /// Plans `requests` given the stored version of each row id (absent = no such row) and the
    /// space's last sequence number.
    init(requests: [PushRequest], storedVersions: [Data: Int64], lastSequence: Int64) {
        self.lastSequence = lastSequence
        var versions = storedVersions
        var accepted: [Data: ServerRow] = [:]
        var order: [Data] = []
        for request in requests {
            let rowID = request.row.rowID
            let current = versions[rowID] ?? 0
            guard request.baseVersion == current else {
                if let written = accepted[rowID] {
                    decisions.append(.conflictWith(written))
                } else {
                    decisions.append(.conflictWithStored(rowID: rowID))
                }
                continue
            }
            self.lastSequence += 1
            var row = request.row
            row.sequence = self.lastSequence
            if accepted[rowID] == nil { order.append(rowID) }
            accepted[rowID] = row
            versions[rowID] = row.version
            decisions.append(.accepted(sequence: row.sequence))
        }
        writes = order.compactMap { accepted[$0] }
    }

    /// The row ids whose stored row a conflict must report.
    var storedConflictIDs: [Data] {
        var seen: Set<Data> = []
        return decisions.compactMap { decision in
            guard case .conflictWithStored(let rowID) = decision, seen.insert(rowID).inserted else { return nil }
            return rowID
        }
    }

    /// Checks what the server's constraints would refuse, before anything is sent.
    static func validate(_ requests: [PushRequest]) throws(SyncError) {
        for request in requests {
            guard request.row.rowID.count == 32 else {
                throw .misuse("a row id is 32 bytes, not \(request.row.rowID.count)")
            }
            guard (1...Int(Int32.max)).contains(request.row.keyEpoch) else {
                throw .misuse("a key epoch is 1 to \(Int32.max), not \(request.row.keyEpoch)")
            }
            guard request.baseVersion >= 0, request.row.version == request.baseVersion + 1 else {
                throw .misuse(
                    "row \(request.row.rowID.syncHex): version \(request.row.version) on base "
                        + "\(request.baseVersion) (a push writes base + 1)"
                )
            }
        }
    }
}
