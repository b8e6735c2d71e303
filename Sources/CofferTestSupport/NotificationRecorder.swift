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
