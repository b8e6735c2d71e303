import CofferTestSupport
import Crypto
import Foundation
import Testing

@testable import Coffer

/// Serializer chains inside a real database: round trips, tampering, canaries, key rotation.
@Suite struct ChainDatabaseTests {
    struct Secret: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    static func keyring(_ id: Keyring.KeyID = 1) throws -> Keyring {
        try Keyring(key: SymmetricKey(size: .bits256), id: id)
    }

    static func stageSet(_ index: Int, _ keyring: Keyring) -> (String, [any SerializationStage]) {
        switch index {
        case 0: ("codec only", [])
        case 1: ("zlib", [.zlib(threshold: 16)])
        case 2: ("aes-gcm", [.aesGCM(keyring)])
        case 3: ("zlib + aes-gcm", [.zlib(threshold: 16), .aesGCM(keyring)])
        default: ("chacha", [.chaChaPoly(keyring)])
        }
    }

    @Test(arguments: 0..<5)
    func everyChainRoundTripsThroughTheDatabase(_ index: Int) throws {
        let keyring = try Self.keyring()
        let (name, stages) = Self.stageSet(index, keyring)
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        db.registerCodable(Secret.self, metadata: Int.self, forCollection: "secrets", stages: stages)
        let connection = try db.newConnection()
        let long = String(repeating: "compressible ", count: 40)
        try connection.readWrite { tx throws in
            for i in 0..<20 {
                try tx.setObject(
                    Secret(name: "n\(i)", value: long + "\(i)"), forKey: "k\(i)", inCollection: "secrets",
                    withMetadata: i)
            }
        }
        let reader = try db.newConnection(
            config: ConnectionConfig(objectCacheEnabled: false, metadataCacheEnabled: false))
        try reader.read { tx throws in
            for i in 0..<20 {
                #expect(
                    try tx.object(forKey: "k\(i)", inCollection: "secrets", as: Secret.self)?.value == long + "\(i)",
                    "\(name)")
                #expect(try tx.metadata(forKey: "k\(i)", inCollection: "secrets", as: Int.self) == i, "\(name)")
            }
        }
    }

    @Test func tamperedAndSwappedBlobsFailAuthenticationWithoutChangingTheRow() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        db.registerCodable(Secret.self, forCollection: "secrets", stages: [.aesGCM(try Self.keyring())])
        let connection = try db.newConnection(config: ConnectionConfig(objectCacheEnabled: false))
        try connection.readWrite { tx throws in
            try tx.setObject(Secret(name: "a", value: "1"), forKey: "a", inCollection: "secrets")
            try tx.setObject(Secret(name: "b", value: "2"), forKey: "b", inCollection: "secrets")
            var tampered = try #require(try tx.serializedObject(forKey: "a", inCollection: "secrets"))
            tampered[tampered.count - 1] ^= 0x01
            try tx.setObject(
                "x", forKey: "t", inCollection: "secrets", withMetadata: nil, serializedObject: tampered,
                serializedMetadata: nil)
            let other = try #require(try tx.serializedObject(forKey: "a", inCollection: "secrets"))
            try tx.setObject(
                "x", forKey: "swapped", inCollection: "secrets", withMetadata: nil, serializedObject: other,
                serializedMetadata: nil)
        }
        for key in ["t", "swapped"] {
            let before = try connection.read { try $0.serializedObject(forKey: key, inCollection: "secrets") }
            let error = #expect(throws: DatabaseError.self) {
                try connection.read { try $0.object(forKey: key, inCollection: "secrets", as: Secret.self) }
            }
            #expect(error?.code == .serialization)
            #expect(error?.collection == "secrets" && error?.key == key)
            #expect((error?.underlying as? SerializationError)?.code == .authenticationFailed)
            let after = try connection.read { try $0.serializedObject(forKey: key, inCollection: "secrets") }
            #expect(before == after)
        }
    }

    @Test func aesCanaryIsAbsentEvenWithTheSQLCipherKey() throws {
        guard let shell = TestSupport.sqlcipherShell else {
            Issue.record("the sqlcipher shell is not installed (scripts/dev.sh installs it)")
            return
        }
        let dir = TemporaryDirectory()
        let key = TestSupport.randomKey()
        let canary = "AES-CANARY-\(UUID().uuidString)"
        do {
            let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions(key))
            db.registerCodable(Secret.self, forCollection: "secrets", stages: [.aesGCM(try Self.keyring())])
            try db.newConnection().readWrite { tx throws in
                for i in 0..<10 {
                    try tx.setObject(Secret(name: "\(i)", value: canary), forKey: "k\(i)", inCollection: "secrets")
                }
            }
        }
        try TestSupport.waitUntilClosed(dir.file("db.sqlite"))
        let text = try TestSupport.runSQLCipherShell(
            shell, database: dir.file("db.sqlite"), rawKey: key,
            script: "SELECT count(*) FROM database2;\nSELECT \"key\", quote(\"data\") FROM database2;\n.dump")
        #expect(text.contains("10"), "the shell must read the rows with the key: \(text.prefix(200))")
        #expect(text.contains("k3"))
        #expect(!text.contains(canary))
        let hexCanary = Data(canary.utf8).map { String(format: "%02X", $0) }.joined()
        #expect(!text.uppercased().contains(hexCanary))
    }

    @Test func reencryptionIsBoundedByTheRowsThatExistedWhenItStarted() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        let keyring = try Self.keyring(1)
        db.registerSerializer(
            SerializerChain(codec: .codable(Secret.self), stages: [.aesGCM(keyring)]), forCollection: "secrets")
        let writer = try db.newConnection()
        try writer.readWrite { tx throws in
            for i in 0..<300 {
                try tx.setObject(Secret(name: "\(i)", value: "v"), forKey: "k\(i)", inCollection: "secrets")
            }
        }
        try keyring.addKey(SymmetricKey(size: .bits256), id: 2)
        try keyring.setCurrent(2)
        // A steady insert load: every batch is followed by more new rows than the batch examined.
        var inserted = 0
        var calls = 0
        let result = try db.reencrypt(collection: "secrets", batchSize: 25) { progress in
            calls += 1
            #expect(progress.examined <= 300)
            #expect(progress.total == 300)
            do {
                try writer.readWrite { tx throws in
                    for _ in 0..<50 {
                        try tx.setObject(
                            Secret(name: "new", value: "\(inserted)"), forKey: "new\(inserted)", inCollection: "secrets"
                        )
                        inserted += 1
                    }
                }
            } catch {
                Issue.record("insert failed: \(error)")
            }
            return calls < 100
        }
        #expect(result.examined == 300)
        #expect(result.rewritten == 300)
        #expect(calls == 11)
        #expect(inserted == 550)
        try writer.read { tx throws in
            try tx.enumerateKeys(inCollection: "secrets") { key, _ in
                let blob = try #require(try tx.serializedObject(forKey: key, inCollection: "secrets"))
                #expect(!SerializerChain(codec: .data, stages: [.aesGCM(keyring)]).needsReencryption(blob), "\(key)")
            }
        }
    }

    @Test func legacyPlaintextRowsAreMigratedOnlyWithTheMigrationSetting() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        let connection = try db.newConnection()
        db.registerCodable(Secret.self, forCollection: "secrets")
        try connection.readWrite { tx throws in
            for i in 0..<3 {
                try tx.setObject(Secret(name: "\(i)", value: "v"), forKey: "k\(i)", inCollection: "secrets")
            }
        }
        let keyring = try Self.keyring(1)
        // The collection gains an AES stage: by default its old rows are refused, not read as plaintext.
        db.registerSerializer(
            SerializerChain(codec: .codable(Secret.self), stages: [.aesGCM(keyring)]), forCollection: "secrets")
        connection.flushMemory(.all)
        let refused = try #require(throws: DatabaseError.self) {
            try connection.read { tx in try tx.object(forKey: "k0", inCollection: "secrets", as: Secret.self) }
        }
        #expect((refused.underlying as? SerializationError)?.code == .unencryptedBlob)
        #expect(throws: DatabaseError.self) { try db.reencrypt(collection: "secrets") }
        // The explicit migration setting reads them, and re-encryption converts every one.
        db.registerSerializer(
            SerializerChain(codec: .codable(Secret.self), stages: [.aesGCM(keyring)], acceptsUnencryptedBlobs: true),
            forCollection: "secrets")
        let migrated = try db.reencrypt(collection: "secrets")
        #expect(migrated.rewritten == 3)
        db.registerSerializer(
            SerializerChain(codec: .codable(Secret.self), stages: [.aesGCM(keyring)]), forCollection: "secrets")
        connection.flushMemory(.all)
        try connection.read { tx throws in
            for i in 0..<3 {
                #expect(try tx.object(forKey: "k\(i)", inCollection: "secrets", as: Secret.self)?.name == "\(i)")
            }
        }
    }

    @Test func rotationInterruptedAndResumedWhileReadersAndWritersRun() throws {
        let dir = TemporaryDirectory()
        let db = try Database(url: dir.file("db.sqlite"), options: TestSupport.rawKeyOptions())
        let keyring = try Self.keyring(1)
        let chain = SerializerChain(codec: .codable(Secret.self), stages: [.aesGCM(keyring)])
        db.registerSerializer(chain, forCollection: "secrets")
        let writer = try db.newConnection()
        try writer.readWrite { tx throws in
            for i in 0..<300 {
                try tx.setObject(Secret(name: "\(i)", value: "v\(i)"), forKey: "k\(i)", inCollection: "secrets")
            }
        }
        try keyring.addKey(SymmetricKey(size: .bits256), id: 2)
        try keyring.setCurrent(2)

        let first = try db.reencrypt(collection: "secrets", batchSize: 50) { _ in false }
        #expect(first.examined == 50)
        let reader = try db.newConnection(config: ConnectionConfig(objectCacheEnabled: false))

        let done = DispatchSemaphore(value: 0)
        let failures = Locked<[String]>([])
        DispatchQueue.global().async {
            defer { done.signal() }
            do {
                for round in 0..<20 {
                    try writer.readWrite { tx throws in
                        try tx.setObject(
                            Secret(name: "w", value: "\(round)"), forKey: "k\(round)", inCollection: "secrets")
                    }
                    let count = try reader.read { tx throws in
                        var n = 0
                        try tx.enumerateKeysAndObjects(inCollection: "secrets", as: Secret.self) { _, _, _ in n += 1 }
                        return n
                    }
                    if count != 300 { failures.withLock { $0.append("saw \(count) rows") } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        let rest = try db.reencrypt(collection: "secrets", batchSize: 50)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(first.examined + rest.examined == 300)

        try reader.read { tx throws in
            for i in 0..<300 {
                let blob = try #require(try tx.serializedObject(forKey: "k\(i)", inCollection: "secrets"))
                #expect(!chain.needsReencryption(blob))
            }
        }
        try keyring.removeKey(1)
        let count = try reader.read { tx throws in
            var n = 0
            try tx.enumerateKeysAndObjects(inCollection: "secrets", as: Secret.self) { _, _, _ in n += 1 }
            return n
        }
        #expect(count == 300)
    }
}
