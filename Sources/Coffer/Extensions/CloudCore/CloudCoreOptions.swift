import Foundation

/// How a ``CloudCore`` stores its queue and which features it keeps tables for.
public struct CloudCoreOptions: Sendable {
    /// The payload types the queue may hold (YapDatabase's `allowedOperationClasses`).
    ///
    /// Adding an operation of another type throws ``CloudCoreError/Code/unknownOperationType``; a
    /// queued operation whose type is missing here stays in the file, blocks what depends on it
    /// (and, in a commit-graph pipeline, later commits), and is reported by
    /// ``CloudCoreTransaction/undecodableOperations()`` until its type is listed again or it is skipped.
    public var operationTypes: [any CloudOperationPayload.Type]
    /// How payloads are encoded; Coffer's binary format (``BinaryEncoder``) by default.
    ///
    /// JSON and property lists can be chosen too; payloads in any of the three are read, whatever this says.
    public var payloadFormat: CodableFormat
    /// The byte stages each stored operation goes through after its payload is encoded, such as
    /// `[.zlib(), .aesGCM(keyring)]`: queued operations can be encrypted like any other value.
    ///
    /// The associated data of an encryption stage names the extension and the operation's UUID,
    /// so an operation's bytes copied onto another fail to decode.
    public var stages: [any SerializationStage]
    /// Whether per-row tags (ETags, version stamps) are kept: ``CloudCoreTransaction/setTag(_:forKey:inCollection:identifier:)``.
    public var enablesTags: Bool
    /// Whether rows can be attached to cloud identifiers: ``CloudCoreTransaction/attach(cloudID:forKey:inCollection:)``.
    public var enablesAttachments: Bool
    /// The clock hold dates are measured by, and the timer that wakes a pipeline when a hold ends.
    ///
    /// Tests pass a ``ManualActionScheduler`` to move time by hand.
    public var scheduler: any ActionScheduler

    /// Options holding `operationTypes`, with binary payloads, no stages, tags and attachments
    /// enabled, and the system clock.
    public init(
        operationTypes: [any CloudOperationPayload.Type], payloadFormat: CodableFormat = .binary,
        stages: [any SerializationStage] = [], enablesTags: Bool = true, enablesAttachments: Bool = true,
        scheduler: any ActionScheduler = .system
    ) {
        self.operationTypes = operationTypes
        self.payloadFormat = payloadFormat
        self.stages = stages
        self.enablesTags = enablesTags
        self.enablesAttachments = enablesAttachments
        self.scheduler = scheduler
    }
}
