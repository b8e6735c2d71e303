public import Coffer
import Foundation

/// Collects the ``Changeset``s one database posts through ``Database/modifiedNotification``.
///
/// Observes only notifications whose `object` is the given database, so tests running in
/// parallel do not see each other's commits. Stops observing when released.
public final class NotificationRecorder: Sendable {
    private let received = Locked<[Changeset]>([])
    private let notificationCount = Locked(0)
    private let token: UncheckedObserver

    /// Starts observing `database`.
    public init(_ database: Database) {
        let observer = NotificationCenter.default.addObserver(
            forName: Database.modifiedNotification, object: database, queue: nil
        ) { [received, notificationCount] notification in
            notificationCount.withLock { $0 += 1 }
            if let changeset = notification.userInfo?[Database.changesetKey] as? Changeset {
                received.append(changeset)
            }
        }
        token = UncheckedObserver(observer)
    }

    deinit {
        NotificationCenter.default.removeObserver(token.value)
    }

    /// The changesets received so far, in arrival order.
    public var changesets: [Changeset] { received.value }

    /// How many notifications arrived, including any without a changeset.
    public var count: Int { notificationCount.value }

    /// Waits for the changeset of commit `snapshot`; nil when it did not arrive within `timeout`.
    ///
    /// Prefer this to counting: a recorder made right after a commit may still receive that
    /// commit's notification, since notifications are posted asynchronously.
    public func changeset(snapshot: UInt64, timeout: Duration = .seconds(5)) -> Changeset? {
        var found: Changeset?
        _ = TestSupport.wait(timeout: timeout) {
            found = received.value.first { $0.snapshot == snapshot }
            return found != nil
        }
        return found
    }

    /// The changesets received so far with a snapshot above `snapshot`, in arrival order.
    public func changesets(after snapshot: UInt64) -> [Changeset] {
        received.value.filter { $0.snapshot > snapshot }
    }

    /// Waits until at least `count` changesets arrived or `timeout` passed; returns whether they did.
    public func wait(forCount count: Int, timeout: Duration = .seconds(5)) -> Bool {
        TestSupport.wait(timeout: timeout) { received.value.count >= count }
    }
}

/// Carries NotificationCenter's observer token (an `NSObjectProtocol` that Foundation does not
/// mark `Sendable`) into the recorder's lock; the token is only passed back to `removeObserver`.
private struct UncheckedObserver: @unchecked Sendable {
    let value: any NSObjectProtocol
    init(_ value: any NSObjectProtocol) { self.value = value }
}
