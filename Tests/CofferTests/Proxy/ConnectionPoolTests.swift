import CofferTestSupport
import Dispatch
import Foundation
import Testing

@testable import Coffer

@Suite struct ConnectionPoolTests {
    let dir = TemporaryDirectory()

    func open() throws -> Database {
        try Database(url: dir.file("pool.db"), options: TestSupport.rawKeyOptions())
    }

    /// Keeps a connection busy with a read transaction until released.
    final class BusyRead: Sendable {
        private let started = DispatchSemaphore(value: 0)
        private let release = DispatchSemaphore(value: 0)

        init(_ connection: Connection) {
            connection.asyncRead { [started, release] _ in
                started.signal()
                _ = release.wait(timeout: .now() + 30)
            }
            _ = started.wait(timeout: .now() + 20)
        }

        func end() { release.signal() }
    }

    @Test func reusesAnIdleConnection() throws {
        let pool = ConnectionPool(database: try open())
        let first = try pool.connection()
        let second = try pool.connection()
        #expect(first === second)
        #expect(pool.connectionCount == 1)
    }

    @Test func createsConnectionsWhileAllAreBusyUpToTheLimit() throws {
        let created = Locked<[UInt64]>([])
        let pool = ConnectionPool(database: try open(), connectionLimit: 2) { connection in
            created.withLock { $0.append(connection.id) }
        }
        let first = try pool.connection()
        let busyFirst = BusyRead(first)
        defer { busyFirst.end() }
        let second = try pool.connection()
        #expect(second !== first)
        let busySecond = BusyRead(second)
        defer { busySecond.end() }
        #expect(first.pendingTransactionCount == 1)
        // Both busy and the limit reached: the least busy existing one is handed out.
        let third = try pool.connection()
        #expect(third === first || third === second)
        #expect(pool.connectionCount == 2)
        #expect(created.withLock { $0 } == [first.id, second.id])
    }

    @Test func handsOutTheLeastBusyConnection() throws {
        let pool = ConnectionPool(database: try open(), connectionLimit: 2)
        let first = try pool.connection()
        let busyFirst = BusyRead(first)
        let second = try pool.connection()
        let busySecond = BusyRead(second)
        // Queue a second transaction behind the first connection's busy read.
        let queued = DispatchSemaphore(value: 0)
        first.asyncRead { _ in queued.signal() }
        #expect(first.pendingTransactionCount == 2)
        #expect(try pool.connection() === second)
        busySecond.end()
        #expect(TestSupport.wait { second.pendingTransactionCount == 0 })
        #expect(try pool.connection() === second)
        busyFirst.end()
        #expect(queued.wait(timeout: .now() + 20) == .success)
    }

    @Test func loweringTheLimitDropsExtraConnections() throws {
        let pool = ConnectionPool(database: try open(), connectionLimit: 3)
        var busy: [BusyRead] = []
        var connections: [Connection] = []
        for _ in 0..<3 {
            let connection = try pool.connection()
            connections.append(connection)
            busy.append(BusyRead(connection))
        }
        #expect(Set(connections.map(\.id)).count == 3)
        #expect(pool.connectionCount == 3)
        pool.connectionLimit = 1
        #expect(pool.connectionLimit == 1)
        #expect(pool.connectionCount == 1)
        #expect(try pool.connection() === connections[0])
        // A dropped connection keeps working for whoever holds it.
        for read in busy { read.end() }
        #expect(try connections[2].read { tx in try tx.numberOfCollections() } == 0)
    }

    @Test func zeroMeansTheDefaultLimit() throws {
        let pool = ConnectionPool(database: try open(), connectionLimit: 0)
        #expect(pool.connectionLimit == ConnectionPool.defaultConnectionLimit)
        pool.connectionLimit = 5
        pool.connectionLimit = 0
        #expect(pool.connectionLimit == 3)
    }

    @Test func newConnectionsUseThePoolConfiguration() throws {
        let db = try open()
        var defaults = ConnectionConfig()
        defaults.objectCacheLimit = 17
        db.connectionDefaults = defaults
        let pool = ConnectionPool(database: db)
        #expect(try pool.connection().objectCacheLimit == 17)
        let configured = ConnectionPool(
            database: db, connectionConfig: ConnectionConfig(objectCacheEnabled: false, objectCacheLimit: 5))
        let connection = try configured.connection()
        #expect(connection.objectCacheLimit == 5)
        #expect(!connection.objectCacheEnabled)
        configured.connectionConfig = nil
        #expect(configured.connectionConfig == nil)
    }

    @Test func poolIsSafeToUseFromManyThreads() async throws {
        let db = try open()
        try await db.newConnection().readWrite { tx in try tx.setObject("v", forKey: "k", inCollection: "c") }
        let pool = ConnectionPool(database: db, connectionLimit: 3)
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try await pool.connection().read { tx in
                        try tx.object(forKey: "k", inCollection: "c", as: String.self)
                    }
                }
            }
            for try await value in group { #expect(value == "v") }
        }
        #expect(pool.connectionCount <= 3)
        #expect(pool.connectionCount >= 1)
    }
}
