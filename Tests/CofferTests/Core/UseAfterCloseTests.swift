import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// Every public entry point of `Database`, `Connection`, `ConnectionPool`, `ConnectionProxy`,
/// `Preferences` and `CredentialStore` after `Database.close(timeout:)`: throwing ones throw
/// `.closed` naming the file, callback ones report it, the rest stay harmless.
///
/// ``UseAfterCloseCoverageTests`` checks that every public member declared for these types in
/// `Sources/Coffer` has an entry here.
@Suite struct UseAfterCloseTests {
    /// Everything made from one database, which is then closed.
    final class Fixture: Sendable {
        let dir = TemporaryDirectory()
        let database: Database
        let connection: Connection
        let pool: ConnectionPool
        let proxy: ConnectionProxy
        let preferences: Preferences
        let credentials: CredentialStore
        let url: URL

        init() throws {
            url = dir.file("db.sqlite")
            database = try Database(url: url, options: TestSupport.rawKeyOptions())
            connection = try database.newConnection()
            pool = ConnectionPool(database: database)
            _ = try pool.connection()
            proxy = try ConnectionProxy(database: database)
            preferences = try Preferences(database: database, suite: "s")
            credentials = try CredentialStore(
                database: database, keyring: try Keyring(key: SymmetricKey(size: .bits256), id: 1))
            try credentials.add(CredentialItem(id: CredentialID(service: "svc", account: "a"), secret: "s"))
            proxy.setObject("v", forKey: "k", inCollection: "c", withMetadata: 1)
            preferences.set(1, forKey: "n")
            try connection.readWrite { tx in try tx.setObject(1, forKey: "k", inCollection: "c") }
            try database.close()
        }

        /// Whether `error` is the `.closed` error naming this database's file.
        func isClosedError(_ error: (any Error)?) -> Bool {
            guard let error = error as? DatabaseError else { return false }
            return error.code == .closed && error.path == url.path && error.description.contains(url.path)
        }
    }

    typealias Call = (name: String, body: @Sendable (Fixture) throws -> Void)
    typealias AsyncCall = (name: String, body: @Sendable (Fixture) async throws -> Void)
    typealias CallbackCall = (
        name: String, body: @Sendable (Fixture, @escaping @Sendable ((any Error)?) -> Void) -> Void
    )

    /// Throwing synchronous calls: each must throw `.closed`.
    static let throwing: [Call] = [
        ("Database.newConnection", { _ = try $0.database.newConnection() }),
        ("Database.register", { try $0.database.register(Hooks(), withName: "hooks") }),
        ("Database.unregister", { try $0.database.unregister(extensionNamed: "hooks") }),
        ("Database.rotateKey", { try $0.database.rotateKey(to: .raw(TestSupport.randomKey())) }),
        ("Database.reencrypt", { try $0.database.reencrypt(collection: "c") }),
        ("Database.reencode", { try $0.database.reencode(collection: "c") }),
        ("Database.checkpoint", { try $0.database.checkpoint(truncate: true) }),
        ("Connection.read", { f in try f.connection.read { _ in } }),
        ("Connection.readWrite", { f in try f.connection.readWrite { _ in } }),
        ("Connection.beginLongLivedReadTransaction", { _ = try $0.connection.beginLongLivedReadTransaction() }),
        ("Connection.endLongLivedReadTransaction", { try $0.connection.endLongLivedReadTransaction() }),
        ("Connection.integrityCheck", { _ = try $0.connection.integrityCheck() }),
        (
            "Connection.withExtensionState",
            { try $0.connection.withExtensionState("hooks", as: AnyObject.self) { _ in } }
        ),
        ("Connection.pragmaSynchronous", { _ = try $0.connection.pragmaSynchronous() }),
        ("Connection.pragmaPageSize", { _ = try $0.connection.pragmaPageSize() }),
        ("Connection.pragmaMMapSize", { _ = try $0.connection.pragmaMMapSize() }),
        ("Connection.pragmaAutoVacuum", { _ = try $0.connection.pragmaAutoVacuum() }),
        ("Connection.vacuum", { try $0.connection.vacuum() }),
        ("Connection.backup", { f in try f.connection.backup(to: f.dir.file("backup.sqlite")) }),
        ("Connection.exportUnencryptedCopy", { f in try f.connection.exportUnencryptedCopy(to: f.dir.file("plain")) }),
        ("ConnectionPool.connection", { _ = try $0.pool.connection() }),
        ("ConnectionPool.connection(new pool)", { _ = try ConnectionPool(database: $0.database).connection() }),
        ("ConnectionProxy.init(database:)", { _ = try ConnectionProxy(database: $0.database) }),
        (
            "ConnectionProxy.init(readConnection:writeConnection:)",
            { _ = try ConnectionProxy(readConnection: $0.connection, writeConnection: $0.connection) }
        ),
        ("ConnectionProxy.object", { _ = try $0.proxy.object(forKey: "k", inCollection: "c") }),
        ("ConnectionProxy.object(as:)", { _ = try $0.proxy.object(forKey: "k", inCollection: "c", as: String.self) }),
        (
            "ConnectionProxy.object(as: Decodable)",
            { _ = try $0.proxy.object(forKey: "k", inCollection: "c", as: Note.self) }
        ),
        ("ConnectionProxy.metadata", { _ = try $0.proxy.metadata(forKey: "k", inCollection: "c") }),
        ("ConnectionProxy.metadata(as:)", { _ = try $0.proxy.metadata(forKey: "k", inCollection: "c", as: Int.self) }),
        (
            "ConnectionProxy.metadata(as: Decodable)",
            { _ = try $0.proxy.metadata(forKey: "k", inCollection: "c", as: Note.self) }
        ),
        ("ConnectionProxy.objectAndMetadata", { _ = try $0.proxy.objectAndMetadata(forKey: "k", inCollection: "c") }),
        ("ConnectionProxy.replaceObject", { try $0.proxy.replaceObject("w", forKey: "k", inCollection: "c") }),
        ("ConnectionProxy.replaceMetadata", { try $0.proxy.replaceMetadata(2, forKey: "k", inCollection: "c") }),
        ("ConnectionProxy.flush", { try $0.proxy.flush() }),
        ("Preferences.init", { _ = try Preferences(database: $0.database, suite: "other") }),
        ("Preferences.object(as:)", { _ = try $0.preferences.object(forKey: "n", as: Int.self) }),
        ("Preferences.set(Any?)", { try $0.preferences.set(2 as Any?, forKey: "n") }),
        ("Preferences.set(Encodable)", { try $0.preferences.set(Note(title: "t", body: "b"), forKey: "note") }),
        ("Preferences.register(defaults:)", { try $0.preferences.register(defaults: ["d": 1]) }),
        ("Preferences.flush", { try $0.preferences.flush() }),
        (
            "CredentialStore.init",
            {
                _ = try CredentialStore(
                    database: $0.database, keyring: try Keyring(key: SymmetricKey(size: .bits256), id: 1))
            }
        ),
        (
            "CredentialStore.add",
            { try $0.credentials.add(CredentialItem(id: CredentialID(service: "svc", account: "b"), secret: "s")) }
        ),
        (
            "CredentialStore.update",
            { try $0.credentials.update(CredentialItem(id: CredentialID(service: "svc", account: "a"), secret: "t")) }
        ),
        (
            "CredentialStore.upsert",
            { try $0.credentials.upsert(CredentialItem(id: CredentialID(service: "svc", account: "a"), secret: "t")) }
        ),
        ("CredentialStore.item", { _ = try $0.credentials.item(for: CredentialID(service: "svc", account: "a")) }),
        ("CredentialStore.delete", { try $0.credentials.delete(CredentialID(service: "svc", account: "a")) }),
        ("CredentialStore.items", { _ = try $0.credentials.items(forService: "svc") }),
        ("Database.register(TypedCollection)", { try $0.database.register(notes) }),
        ("ConnectionProxy.set", { try $0.proxy.set(Note(title: "t", body: "b"), forKey: "k", in: notes) }),
        ("ConnectionProxy.object(in:)", { _ = try $0.proxy.object(forKey: "k", in: notes) }),
        ("ConnectionProxy.metadata(in:)", { _ = try $0.proxy.metadata(forKey: "k", in: notes) }),
        ("Preferences.set(_:for:)", { try $0.preferences.set(true, for: .closedFlag) }),
    ]

    /// The typed collection the typed calls use.
    static let notes = CollectionHandle<Note>("notes")

    /// Throwing asynchronous calls: each must throw `.closed`.
    static let throwingAsync: [AsyncCall] = [
        ("Connection.read async", { f in _ = try await f.connection.read { @Sendable _ in 1 } }),
        (
            "Connection.viewUpdates",
            { f in
                var updates = f.connection.viewUpdates(ViewMappings(groups: [""], view: "v")).makeAsyncIterator()
                _ = try await updates.next()
            }
        ),
        ("Connection.readWrite async", { f in _ = try await f.connection.readWrite { @Sendable _ in 1 } }),
        ("Connection.search", { f in try await f.connection.search("q", inView: "results", queue: SearchQueue()) }),
        // An observation started after the close ends with `.closed` from its first read.
        ("Database.observe", { f in for try await _ in f.database.observe(.everything, fetch: { _ in 1 }) {} }),
        (
            "Database.observeObject(in:)",
            { f in for try await _ in f.database.observeObject(forKey: "k", in: notes) {} }
        ),
        (
            "Database.observeObject(as:)",
            { f in for try await _ in f.database.observeObject(forKey: "k", inCollection: "c", as: Int.self) {} }
        ),
        (
            "Database.observeObject",
            { f in for try await _ in f.database.observeObject(forKey: "k", inCollection: "c") {} }
        ),
        ("Database.observeKeys(in:)", { f in for try await _ in f.database.observeKeys(in: notes) {} }),
        ("Database.observeKeys", { f in for try await _ in f.database.observeKeys(inCollection: "c") {} }),
        (
            "Database.observeKeys(inSecondaryIndex:)",
            { f in for try await _ in f.database.observeKeys(matching: .matchingAll, inSecondaryIndex: "i") {} }
        ),
        (
            "Database.observeKeys(inFullTextSearch:)",
            { f in for try await _ in f.database.observeKeys(matching: "x", inFullTextSearch: "s") {} }
        ),
        ("Connection.vacuum async", { try await $0.connection.vacuum() }),
        ("Connection.backup async", { f in try await f.connection.backup(to: f.dir.file("backup2.sqlite")) }),
        ("ConnectionProxy.flush async", { try await $0.proxy.flush() }),
        ("Preferences.flush async", { try await $0.preferences.flush() }),
    ]

    /// Callback-style calls: each must report `.closed` to its completion.
    static let callbacks: [CallbackCall] = [
        ("Connection.asyncRead", { f, done in f.connection.asyncRead({ _ in }, completion: done) }),
        ("Connection.asyncReadWrite", { f, done in f.connection.asyncReadWrite({ _ in }, completion: done) }),
        (
            "Connection.asyncBackup",
            { f, done in f.connection.asyncBackup(to: f.dir.file("backup3.sqlite"), completion: done) }
        ),
        ("Database.asyncRegister", { f, done in f.database.asyncRegister(Hooks(), withName: "h2", completion: done) }),
        ("Database.asyncUnregister", { f, done in f.database.asyncUnregister(extensionNamed: "h2", completion: done) }),
    ]

    @Test(arguments: throwing.map(\.name))
    func throwingCallsThrowClosed(name: String) throws {
        let fixture = try Fixture()
        let call = try #require(Self.throwing.first { $0.name == name })
        let error = #expect(throws: (any Error).self) { try call.body(fixture) }
        #expect(fixture.isClosedError(error), "\(name) threw \(String(describing: error))")
    }

    @Test(arguments: throwingAsync.map(\.name))
    func asyncCallsThrowClosed(name: String) async throws {
        let fixture = try Fixture()
        let call = try #require(Self.throwingAsync.first { $0.name == name })
        let result = try await TestSupport.withTimeout(.seconds(10)) {
            do {
                try await call.body(fixture)
                return nil as String?
            } catch {
                return fixture.isClosedError(error) ? "closed" : "\(error)"
            }
        }
        #expect(result == "closed", "\(name)")
    }

    @Test(arguments: callbacks.map(\.name))
    func callbacksReportClosed(name: String) throws {
        let fixture = try Fixture()
        let call = try #require(Self.callbacks.first { $0.name == name })
        let reported = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        call.body(fixture) { error in
            reported.withLock { $0 = error }
            done.signal()
        }
        #expect(TestSupport.wait(done))
        #expect(fixture.isClosedError(reported.value), "\(name) reported \(String(describing: reported.value))")
    }

    @Test func nonThrowingCallsStayHarmless() async throws {
        let fixture = try Fixture()
        let db = fixture.database
        let snapshot = db.snapshot
        #expect(snapshot > 0)
        #expect(db.isClosed)
        // Database: configuration changes only this instance; properties keep their last values.
        db.registerSerializer(SerializerChain(codec: .data), forCollection: "x")
        db.registerSerializer(SerializerChain(codec: .data), forCollections: ["y"])
        db.registerObjectSerializer(SerializerChain(codec: .data), forCollection: "x")
        db.registerMetadataSerializer(SerializerChain(codec: .data), forCollection: "x")
        db.registerDefaultSerializer(SerializerChain(codec: .automatic))
        db.registerDefaultObjectSerializer(SerializerChain(codec: .automatic))
        db.registerDefaultMetadataSerializer(SerializerChain(codec: .automatic))
        db.registerCodable(Note.self, forCollection: "notes")
        db.registerCodable(Note.self, metadata: Int.self, forCollection: "notes")
        db.registerData(forCollection: "blobs")
        db.registerObjectPreSanitizer({ _, _, value in value }, forCollection: "x")
        db.registerObjectPostSanitizer({ _, _, _ in }, forCollection: "x")
        db.registerMetadataPreSanitizer({ _, _, value in value }, forCollection: "x")
        db.registerMetadataPostSanitizer({ _, _, _ in }, forCollection: "x")
        db.registerDefaultPreSanitizer { _, _, value in value }
        db.registerDefaultPostSanitizer { _, _, _ in }
        db.setObjectPolicy(.share, forCollection: "x")
        db.setMetadataPolicy(.share, forCollection: "x")
        db.setDefaultObjectPolicy(.containment)
        db.setDefaultMetadataPolicy(.containment)
        #expect(db.objectPolicy(forCollection: "x") == .share)
        #expect(db.metadataPolicy(forCollection: "x") == .share)
        #expect(db.snapshot == snapshot)
        #expect(db.pageSize > 0)
        #expect(db.cipherSettings != nil)
        #expect(db.formatVersion == 3)
        #expect(!db.sqliteVersion.isEmpty && !db.cipherVersion.isEmpty)
        #expect(db.url == fixture.url && db.walURL.path.hasSuffix("-wal") && db.shmURL.path.hasSuffix("-shm"))
        #expect(db.options.key == nil)
        db.connectionDefaults = ConnectionConfig(objectCacheLimit: 10)
        #expect(db.connectionDefaults.objectCacheLimit == 10)
        _ = db.previouslyRegisteredExtensionNames
        db.maxConnectionPoolCount = 0
        #expect(db.maxConnectionPoolCount == 0)
        db.connectionPoolLifetime = .seconds(1)
        #expect(db.connectionPoolLifetime == .seconds(1))
        #expect(db.registeredExtension("hooks") == nil)
        #expect(db.registeredExtensions.isEmpty)
        let flushed = DispatchSemaphore(value: 0)
        db.flushExtensionRequests { flushed.signal() }
        #expect(TestSupport.wait(flushed))
        #expect(Database.waitUntilClosed(fixture.url, timeout: .zero))
        _ = Database.waitUntilAllClosed(timeout: .zero)
        _ = Database.defaultDatabaseURL
        var streamEnded = false
        for await _ in db.changes {}
        streamEnded = true
        #expect(streamEnded)
        try TestSupport.runBounded { try db.close() }?.get()
        try await db.close()

        // Connection: properties and memory only.
        let connection = fixture.connection
        connection.name = "after"
        #expect(connection.name == "after")
        #expect(connection.snapshot == snapshot)
        #expect(connection.pendingTransactionCount == 0)
        #expect(connection.id > 0 && connection.database === db)
        connection.objectCacheEnabled = false
        connection.objectCacheLimit = 5
        connection.metadataCacheEnabled = false
        connection.metadataCacheLimit = 5
        #expect(!connection.objectCacheEnabled && connection.objectCacheLimit == 5)
        #expect(!connection.metadataCacheEnabled && connection.metadataCacheLimit == 5)
        #expect(!connection.isInLongLivedReadTransaction)
        connection.flushMemory()
        connection.flushMemory(.caches)
        let transactionsFlushed = DispatchSemaphore(value: 0)
        connection.flushTransactions { transactionsFlushed.signal() }
        #expect(TestSupport.wait(transactionsFlushed))
        await connection.flushTransactions()
        #expect(!connection.hasChange(forKey: "k", inCollection: "c", in: []))
        #expect(!connection.hasObjectChange(forKey: "k", inCollection: "c", in: []))
        #expect(!connection.hasMetadataChange(forKey: "k", inCollection: "c", in: []))
        #expect(!connection.hasChange(forAnyKeys: ["k"], inCollection: "c", in: []))
        #expect(!connection.hasObjectChange(forAnyKeys: ["k"], inCollection: "c", in: []))
        #expect(!connection.hasMetadataChange(forAnyKeys: ["k"], inCollection: "c", in: []))
        #expect(!connection.hasChange(forCollection: "c", in: []))
        #expect(!connection.hasObjectChange(forCollection: "c", in: []))
        #expect(!connection.hasMetadataChange(forCollection: "c", in: []))
        #expect(!connection.didClearCollection("c", in: []))
        #expect(!connection.didClearAllCollections(in: []))
        connection.enumerateChangedKeys(inCollection: "c", in: []) { _, _ in }
        connection.enumerateChangedCollectionKeys(in: []) { _, _ in }

        // Pool: settings only.
        let pool = fixture.pool
        pool.connectionLimit = 1
        #expect(pool.connectionLimit == 1)
        pool.connectionConfig = ConnectionConfig()
        #expect(pool.connectionConfig != nil)
        pool.didCreateConnection = { _ in }
        #expect(pool.didCreateConnection != nil)
        #expect(pool.connectionCount == 1)
        #expect(pool.database === db)

        // Proxy: writes do nothing, pending state and settings stay readable.
        let proxy = fixture.proxy
        #expect(proxy.pendingChangeCount == 0)
        proxy.setObject("w", forKey: "k2", inCollection: "c")
        proxy.removeObject(forKey: "k", inCollection: "c")
        proxy.removeObjects(forKeys: ["k"], inCollection: "c")
        #expect(proxy.pendingChangeCount == 0)
        #expect(!proxy.hasPendingChange(forKey: "k2", inCollection: "c"))
        proxy.reset(key: "k", inCollection: "c")
        proxy.reset()
        proxy.fetchedCollectionsFilter = .all
        #expect(proxy.fetchedCollectionsFilter.isAllowed("c"))
        #expect(proxy.lastWriteError == nil)
        #expect(proxy.id > 0 && proxy.database === db)
        #expect(proxy.readConnection.database === db && proxy.writeConnection.database === db)

        // Preferences: getters return the last values, setters do nothing.
        let prefs = fixture.preferences
        prefs.set(true, forKey: "b")
        prefs.set(2, forKey: "n")
        prefs.set(2.5, forKey: "d")
        prefs.set(Float(1.5), forKey: "f")
        prefs.set("s", forKey: "s")
        prefs.set(Data([1]), forKey: "data")
        prefs.set(Date(), forKey: "date")
        prefs.set(URL(fileURLWithPath: "/tmp"), forKey: "url")
        prefs.set(PreferenceValue.int(3), forKey: "pv")
        prefs.removeObject(forKey: "n")
        prefs.removeAll()
        #expect(prefs.integer(forKey: "n") == 1)
        #expect(prefs.value(forKey: "n") == .int(1))
        #expect(prefs.object(forKey: "n") as? Int == 1)
        #expect(!prefs.bool(forKey: "b"))
        #expect(prefs.double(forKey: "d") == 0)
        #expect(prefs.float(forKey: "f") == 0)
        #expect(prefs.string(forKey: "s") == nil)
        #expect(prefs.data(forKey: "data") == nil)
        #expect(prefs.url(forKey: "url") == nil)
        #expect(prefs.array(forKey: "a") == nil)
        #expect(prefs.stringArray(forKey: "a") == nil)
        #expect(prefs.dictionary(forKey: "dict") == nil)
        #expect(prefs.dictionaryRepresentation().count == 1)
        prefs[.closedFlag] = true
        prefs.reset(.closedFlag)
        #expect(prefs[.closedFlag] == false)
        #expect(prefs[.closedCount] == 1)
        var updates: [Int] = []
        for await value in prefs.updates(for: .closedCount) { updates.append(value) }
        #expect(updates == [1], "after a close, updates(for:) gives the last value and ends")
        #expect(!prefs.synchronize())
        #expect(prefs.pendingChangeCount == 0)
        _ = prefs.changes
        #expect(prefs.suite == "s" && prefs.collection == Preferences.collection(forSuite: "s"))
        #expect(prefs.database === db)
        _ = Preferences.codec

        // Credential store: properties only.
        #expect(fixture.credentials.database === db)
        #expect(fixture.credentials.collection == "coffer.credentials")
    }

    /// Every member these tests exercise, as `Type.name`; ``UseAfterCloseCoverageTests`` compares
    /// it with the public members declared in the sources.
    static let covered: Set<String> = [
        "Database.init", "Database.newConnection", "Database.register", "Database.unregister", "Database.rotateKey",
        "Database.reencrypt", "Database.reencode", "Database.checkpoint", "Database.asyncRegister",
        "Database.asyncUnregister",
        "Database.flushExtensionRequests", "Database.registeredExtension", "Database.registeredExtensions",
        "Database.registerSerializer", "Database.registerObjectSerializer", "Database.registerMetadataSerializer",
        "Database.registerDefaultSerializer", "Database.registerDefaultObjectSerializer",
        "Database.registerDefaultMetadataSerializer", "Database.registerCodable", "Database.registerData",
        "Database.registerObjectPreSanitizer", "Database.registerObjectPostSanitizer",
        "Database.registerMetadataPreSanitizer", "Database.registerMetadataPostSanitizer",
        "Database.registerDefaultPreSanitizer", "Database.registerDefaultPostSanitizer", "Database.setObjectPolicy",
        "Database.setMetadataPolicy", "Database.setDefaultObjectPolicy", "Database.setDefaultMetadataPolicy",
        "Database.objectPolicy", "Database.metadataPolicy", "Database.snapshot", "Database.pageSize",
        "Database.cipherSettings", "Database.formatVersion", "Database.sqliteVersion", "Database.cipherVersion",
        "Database.url", "Database.walURL", "Database.shmURL", "Database.options", "Database.connectionDefaults",
        "Database.previouslyRegisteredExtensionNames", "Database.maxConnectionPoolCount",
        "Database.connectionPoolLifetime", "Database.waitUntilClosed", "Database.waitUntilAllClosed",
        "Database.defaultDatabaseURL", "Database.changes", "Database.close", "Database.isClosed",
        "Database.modifiedNotification", "Database.changesetKey",
        // A static conversion of two other files; it never touches an open database.
        "Database.encryptPlaintextDatabase",
        "Connection.read", "Connection.readWrite", "Connection.asyncRead", "Connection.asyncReadWrite",
        "Connection.search",
        "Connection.flushTransactions", "Connection.beginLongLivedReadTransaction",
        "Connection.endLongLivedReadTransaction", "Connection.isInLongLivedReadTransaction", "Connection.flushMemory",
        "Connection.integrityCheck", "Connection.withExtensionState", "Connection.viewUpdates",
        "Connection.pragmaSynchronous",
        "Connection.pragmaPageSize",
        "Connection.pragmaMMapSize", "Connection.pragmaAutoVacuum", "Connection.vacuum", "Connection.backup",
        "Connection.asyncBackup", "Connection.exportUnencryptedCopy", "Connection.hasChange",
        "Connection.hasObjectChange", "Connection.hasMetadataChange", "Connection.didClearCollection",
        "Connection.didClearAllCollections", "Connection.enumerateChangedKeys",
        "Connection.enumerateChangedCollectionKeys", "Connection.name", "Connection.snapshot",
        "Connection.pendingTransactionCount", "Connection.objectCacheEnabled", "Connection.objectCacheLimit",
        "Connection.metadataCacheEnabled", "Connection.metadataCacheLimit", "Connection.id", "Connection.database",
        "ConnectionPool.init", "ConnectionPool.connection", "ConnectionPool.connectionLimit",
        "ConnectionPool.connectionConfig", "ConnectionPool.didCreateConnection", "ConnectionPool.connectionCount",
        "ConnectionPool.database", "ConnectionPool.defaultConnectionLimit",
        "ConnectionProxy.init", "ConnectionProxy.object", "ConnectionProxy.metadata",
        "ConnectionProxy.objectAndMetadata", "ConnectionProxy.setObject", "ConnectionProxy.replaceObject",
        "ConnectionProxy.replaceMetadata", "ConnectionProxy.removeObject", "ConnectionProxy.removeObjects",
        "ConnectionProxy.reset", "ConnectionProxy.flush", "ConnectionProxy.fetchedCollectionsFilter",
        "ConnectionProxy.pendingChangeCount", "ConnectionProxy.hasPendingChange", "ConnectionProxy.lastWriteError",
        "ConnectionProxy.id", "ConnectionProxy.database", "ConnectionProxy.readConnection",
        "ConnectionProxy.writeConnection", "ConnectionProxy.set",
        "Database.observe", "Database.observeObject", "Database.observeKeys",
        "Preferences.subscript", "Preferences.reset", "Preferences.updates",
        "Preferences.init", "Preferences.value", "Preferences.object", "Preferences.bool", "Preferences.integer",
        "Preferences.double", "Preferences.float", "Preferences.string", "Preferences.data", "Preferences.url",
        "Preferences.array", "Preferences.stringArray", "Preferences.dictionary", "Preferences.set",
        "Preferences.removeObject", "Preferences.removeAll", "Preferences.register",
        "Preferences.dictionaryRepresentation", "Preferences.flush", "Preferences.synchronize",
        "Preferences.pendingChangeCount", "Preferences.changes", "Preferences.codec", "Preferences.collection",
        "Preferences.database", "Preferences.suite", "Preferences.didChangeNotification",
        "Preferences.changedKeysKey", "Preferences.isExternalKey",
        "CredentialStore.init", "CredentialStore.add", "CredentialStore.update", "CredentialStore.upsert",
        "CredentialStore.item", "CredentialStore.delete", "CredentialStore.items", "CredentialStore.database",
        "CredentialStore.collection",
    ]
}

extension Preferences.Keys {
    fileprivate static let closedFlag = Preferences.Key<Bool>("closedFlag", default: false)
    fileprivate static let closedCount = Preferences.Key<Int>("n", default: 0)
}
