import Coffer

/// The queued operation that asks the uploader to send one row: only where the row is, so that
/// several edits of a row before the upload runs send its latest value once.
struct SyncUploadRequest: CloudOperationPayload, Hashable {
    static let operationType = "coffer-sync.upload"
    var collection: String
    var key: String
}
