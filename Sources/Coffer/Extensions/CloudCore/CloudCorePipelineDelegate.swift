/// Receives the operations a ``CloudCorePipeline`` starts (YapDatabase's
/// `YapDatabaseCloudCorePipelineDelegate`).
public protocol CloudCorePipelineDelegate: AnyObject, Sendable {
    /// Starts `operation`: do the network work, then complete or skip it in a read-write
    /// transaction (``CloudCoreTransaction/complete(_:)``), or hand it back for a retry
    /// (``CloudCorePipeline/setPending(_:retryAfter:)``).
    ///
    /// Called on a background queue, possibly for several operations at once (up to the
    /// pipeline's ``CloudCorePipeline/maxConcurrentOperationCount``); it must not block for long.
    /// The pipeline counts the operation as running until one of those calls commits.
    func startOperation(_ operation: CloudOperation, in pipeline: CloudCorePipeline)
}
