public import Foundation

/// Something that changed in a ``CloudCore``'s pipelines, delivered by ``CloudCore/events()`` and
/// posted to `NotificationCenter.default` (YapDatabase's pipeline notifications).
public enum CloudCoreEvent: Sendable, Hashable {
    /// A commit added, modified or removed (completed or skipped) operations of a pipeline.
    case queueChanged(CloudCoreQueueChange)
    /// The extension's suspend count changed to the value given.
    case suspendCountChanged(Int)
    /// A pipeline became active (an operation started) or inactive (none running, and the queue
    /// empty or the extension suspended).
    case activeStatusChanged(pipeline: String, isActive: Bool)
}

/// The operations of one pipeline a commit changed.
public struct CloudCoreQueueChange: Sendable, Hashable {
    /// The pipeline's name.
    public var pipeline: String
    /// Operations added or inserted into a graph.
    public var added: Set<UUID>
    /// Operations replaced by ``CloudCoreTransaction/modify(_:)``.
    public var modified: Set<UUID>
    /// Operations completed or skipped.
    public var removed: Set<UUID>

    /// A change of `pipeline`.
    public init(pipeline: String, added: Set<UUID> = [], modified: Set<UUID> = [], removed: Set<UUID> = []) {
        self.pipeline = pipeline
        self.added = added
        self.modified = modified
        self.removed = removed
    }

    var isEmpty: Bool { added.isEmpty && modified.isEmpty && removed.isEmpty }
}

extension CloudCore {
    /// Posted when a pipeline's queue changed; the object is the ``CloudCorePipeline``, the
    /// ``CloudCoreEvent`` is under ``eventUserInfoKey``.
    public static let queueChangedNotification = Notification.Name("CofferCloudCoreQueueChanged")
    /// Posted to every pipeline (the object) when the extension's suspend count changed.
    public static let suspendCountChangedNotification = Notification.Name("CofferCloudCoreSuspendCountChanged")
    /// Posted when a pipeline (the object) became active or inactive.
    public static let activeStatusChangedNotification = Notification.Name("CofferCloudCoreActiveStatusChanged")
    /// The `userInfo` key of the ``CloudCoreEvent`` a notification describes.
    public static let eventUserInfoKey = "event"
}

/// Hands events to every `AsyncStream` subscriber and to `NotificationCenter`, in order, on one
/// serial queue.
final class CloudCoreEventHub: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<CloudCoreEvent>.Continuation]>([:])
    private let queue = DispatchQueue(label: "Coffer.CloudCore.events")

    /// A new subscription; it ends when its iteration ends.
    func stream() -> AsyncStream<CloudCoreEvent> {
        let (stream, continuation) = AsyncStream<CloudCoreEvent>.makeStream()
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers `event`, posting it to `NotificationCenter` once for each of `objects`.
    func emit(_ event: CloudCoreEvent, objects: [CloudCorePipeline]) {
        queue.async { [subscribers] in
            for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
            let name: Notification.Name =
                switch event {
                case .queueChanged: CloudCore.queueChangedNotification
                case .suspendCountChanged: CloudCore.suspendCountChangedNotification
                case .activeStatusChanged: CloudCore.activeStatusChangedNotification
                }
            for object in objects {
                NotificationCenter.default.post(
                    name: name, object: object, userInfo: [CloudCore.eventUserInfoKey: event])
            }
        }
    }

    /// Waits until every event emitted so far was delivered.
    func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }
}
