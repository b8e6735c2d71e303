import CofferTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Coffer

/// A string codec that can hold a batch inside its transaction or make it fail, so tests control
/// exactly when a proxy's write is in flight.
final class WriteGate: Sendable {
    /// Values starting with this block the writer while the gate has blocks armed.
    static let blockPrefix = "BLOCK"
    /// This value makes the codec throw while failing is on.
    static let failMarker = "FAIL"

    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let armedBlocks = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    var chain: SerializerChain {
        SerializerChain(
            codec: Serializer(
                name: "gate",
                encode: { [self] object in
                    guard let string = object as? String else {
                        throw SerializationError(.typeMismatch, stage: "gate", reason: "expected a String")
                    }
                    if string.hasPrefix(Self.blockPrefix), self.takeBlock() {
                        self.entered.signal()
                        _ = self.released.wait(timeout: .now() + 30)
                    }
                    if string == Self.failMarker, self.failing.load(ordering: .relaxed) {
                        throw SerializationError(.codecFailed, stage: "gate", reason: "the test made this write fail")
                    }
                    return Data(string.utf8)
                },
                decode: { String(decoding: $0, as: UTF8.self) }))
    }

    /// Lets the next `count` blocking values hold their batch.
    func arm(_ count: Int = 1) { armedBlocks.add(count, ordering: .relaxed) }

    /// Waits until a batch is held inside the codec.
    func waitUntilHeld() -> Bool { entered.wait(timeout: .now() + 20) == .success }

    /// Lets one held batch continue.
    func open() { released.signal() }

    private func takeBlock() -> Bool {
        var current = armedBlocks.load(ordering: .relaxed)
        while current > 0 {
            let (exchanged, original) = armedBlocks.compareExchange(
                expected: current, desired: current - 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }
}

/// Holds the database's write lock from a background thread until released, so proxy batches queue up.
final class WriteLockHolder: Sendable {
    private let acquired = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ database: Database) throws {
        let connection = try database.newConnection()
        DispatchQueue.global().async { [acquired, released, done] in
            _ = try? connection.readWrite { _ in
                acquired.signal()
                _ = released.wait(timeout: .now() + 30)
            }
            done.signal()
        }
        _ = acquired.wait(timeout: .now() + 20)
    }

    func release() {
        released.signal()
        _ = done.wait(timeout: .now() + 20)
    }
}

enum ProxyTestSupport {
    /// Opens a database, retrying while the previous instance for the file is still being released
    /// by a background queue: the file may be open once per process (`.misuse`), and closing the
    /// last handle briefly locks it (`.busy`).
    static func reopen(_ url: URL, key: Data) throws -> Database {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try Database(url: url, options: TestSupport.rawKeyOptions(key))
            } catch let error as DatabaseError
                where (error.code == .misuse || error.code == .busy) && ContinuousClock.now < deadline
            {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Polls `condition` without blocking a thread of the cooperative pool; returns whether it held in time.
    static func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// Runs `open`, retrying while it fails with `.busy`.
    ///
    /// A new connection runs its first statement before the core sets its busy timeout, so opening
    /// one while another connection commits or checkpoints can fail at once with `.busy` (reported
    /// to the core; tests that open connections mid-activity go through here).
    static func retryingBusy<T>(_ open: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try open()
            } catch let error as DatabaseError where error.code == .busy && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// A new connection, opened with ``retryingBusy(_:)``.
    static func connection(_ db: Database) throws -> Connection {
        try retryingBusy { try db.newConnection() }
    }

    /// Reads a string through another connection: what the database holds, not the proxy.
    static func stored(_ db: Database, _ key: String, _ collection: String) throws -> String? {
        try connection(db).read { tx in try tx.object(forKey: key, inCollection: collection, as: String.self) }
    }
}
