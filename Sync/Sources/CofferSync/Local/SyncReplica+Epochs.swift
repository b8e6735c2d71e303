import Coffer
import Foundation

extension SyncReplica {
    /// Adopts a new key epoch in one transaction: stores the credentials with the new key,
    /// recomputes every row's id under it, and sets the cursor to 0 so the re-sealed space is
    /// pulled again (rows whose version is already held are skipped).
    func adoptEpoch(_ credentials: SyncDeviceCredentials, sealer: RowSealer) throws {
        try connection.readWrite { tx in
            try markRemote(tx)
            try SyncLocalStore.setCredentials(credentials, tx)
            var updates: [(String, String, SyncRowState)] = []
            try SyncLocalStore.enumerateRowStates(tx) { collection, key, state in
                var state = state
                state.rowID = sealer.rowID(collection: collection, key: key).bytes
                updates.append((collection, key, state))
            }
            for (collection, key, state) in updates {
                try SyncLocalStore.setRowState(state, tx, collection: collection, key: key)
            }
            try SyncLocalStore.setCursor(0, tx)
        }
    }
}
