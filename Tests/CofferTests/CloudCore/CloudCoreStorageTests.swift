import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// What survives a restart: graph order, pending status, operations of unknown types, encrypted
/// bytes; and tags and attachments going with their rows.
@Suite(.timeLimit(.minutes(1))) struct CloudCoreStorageTests {
    /// Closes the fixture's database and opens the file again with a fresh cloud core.
    static func reopen(
        _ fixture: CloudFixture, types: [any CloudOperationPayload.Type] = [Upload.self, Purge.self],
        stages: [any SerializationStage] = [], payloadFormat: CodableFormat = .binary, delegate: Bool = true
    ) throws -> CloudFixture {
        try fixture.test.database.close()
        let test = try TestDatabase(reopening: fixture.test)
        return try CloudFixture(
            types: types, stages: stages, payloadFormat: payloadFormat, test: test, delegate: delegate)
    }

    /// Payloads are read in every format, whichever the options write: a queue written with JSON
    /// payloads (or property lists) reads back under the binary default, and the other way round.
    @Test(arguments: [
        (CodableFormat.json, CodableFormat.binary), (.binary, .json), (.propertyList, .binary),
        (.binary, .propertyList),
    ])
    func payloadsWrittenInOneFormatReadBackUnderAnother(written: CodableFormat, reading: CodableFormat) throws {
        let fixture = try CloudFixture(stages: [.zlib()], payloadFormat: written, delegate: false)
        try fixture.commit("a", "b")
        let reopened = try Self.reopen(fixture, stages: [.zlib()], payloadFormat: reading, delegate: false)
        let names = reopened.pipeline.queuedOperations().map { $0.compactMap { $0.payload(as: Upload.self)?.name } }
        #expect(names == [["a", "b"]])
        let undecodable = try reopened.connection.read { tx in try tx.cloudCore("cloud").undecodableOperations() }
        #expect(undecodable.isEmpty)
    }

    /// The options' format is the one written: JSON text, or Coffer's binary format after the envelope.
    @Test func theOptionsFormatIsTheOneWritten() throws {
        let operation = CloudOperation(Upload(name: "note"))
        func payload(_ format: CodableFormat) throws -> Data {
            let coder = CloudOperationCoder(
                options: CloudCoreOptions(operationTypes: [Upload.self], payloadFormat: format))
            let bytes = try coder.encode(operation, registeredName: "cloud")
            // Format byte, priority, no hold date, no dependencies: 10 bytes.
            return bytes.dropFirst(10)
        }
        #expect(String(decoding: try payload(.json), as: UTF8.self) == #"{"name":"note"}"#)
        #expect(try payload(.binary).first == 0xC1)
        #expect(try payload(.propertyList).starts(with: Data("bplist".utf8)))
    }

    @Test func aRestartKeepsGraphOrderAndMakesRunningOperationsPendingAgain() throws {
        let fixture = try CloudFixture()
        var ops = try fixture.commit("a", "b")
        ops = try fixture.commit("c", into: ops)
        #expect(fixture.active == ["a", "b"])
        let firstGraph = try #require(fixture.pipeline.operation(ops["a"]!)?.graphID)

        let reopened = try Self.reopen(fixture, delegate: false)
        let names = reopened.pipeline.queuedOperations().map { $0.compactMap { $0.payload(as: Upload.self)?.name } }
        #expect(names == [["a", "b"], ["c"]])
        #expect(reopened.pipeline.status(of: ops["a"]!) == .pending)
        #expect(reopened.active.isEmpty)
        reopened.pipeline.delegate = reopened.recorder
        #expect(reopened.active == ["a", "b"])
        let later = try reopened.commit("d")
        #expect(try #require(reopened.pipeline.operation(later["d"]!)?.graphID) > firstGraph + 1)
        try reopened.complete(ops["a"])
        try reopened.complete(ops["b"])
        #expect(reopened.active == ["c"])
    }

    @Test func anUnknownTypeIsAClearErrorAndTheRestOfTheQueueStays() throws {
        let fixture = try CloudFixture()
        let purge = CloudOperation(Purge(path: "/old"))
        let kept = CloudOperation(Upload(name: "kept"))
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            try cloud.add(purge)
            try cloud.add(kept)
        }
        let ops = try fixture.commit("next")

        let reopened = try Self.reopen(fixture, types: [Upload.self])
        try reopened.connection.read { tx in
            let cloud = try tx.cloudCore("cloud")
            let errors = try cloud.undecodableOperations()
            #expect(errors.map(\.code) == [.unknownOperationType])
            #expect(errors.first?.operation == purge.uuid)
            #expect(errors.first?.description.contains("purge") == true)
            #expect { try cloud.operation(purge.uuid) } throws: {
                ($0 as? CloudCoreError)?.code == .unknownOperationType
            }
            #expect(try cloud.operations().map(\.uuid) == [kept.uuid, ops["next"]!])
        }
        // The undecodable operation holds its graph back, so later commits wait.
        #expect(reopened.active == ["kept"])
        try reopened.complete(kept.uuid)
        #expect(reopened.active.isEmpty)
        try reopened.connection.readWrite { tx in try tx.cloudCore("cloud").skip(purge.uuid) }
        #expect(reopened.active == ["next"])
    }

    @Test func anUnknownTypeDecodesOnceRegisteredAgain() throws {
        let fixture = try CloudFixture()
        let purge = CloudOperation(Purge(path: "/old"))
        _ = try fixture.connection.readWrite { tx in try tx.cloudCore("cloud").add(purge) }
        let without = try Self.reopen(fixture, types: [Upload.self])
        let with = try Self.reopen(without)
        try with.connection.read { tx in
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.undecodableOperations().isEmpty)
            #expect(try cloud.operation(purge.uuid)?.payload(as: Purge.self) == Purge(path: "/old"))
        }
    }

    @Test func anEncryptionStageKeepsPayloadsOutOfTheFileAndBindsEachToItsOperation() throws {
        let keyring = try Keyring(key: Data(repeating: 7, count: 32), id: 1)
        let fixture = try CloudFixture(stages: [.zlib(), .aesGCM(keyring)])
        let secret = CloudOperation(Upload(name: "secret-payload-name"))
        let other = CloudOperation(Upload(name: "other"))
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            try cloud.add(secret)
            try cloud.add(other)
            let row = try #require(try cloud.storedRow(secret.uuid))
            #expect(row.blob.prefix(4) == Data([0xC0, 0x46, 0x46, 0x52]))
            #expect(row.blob.range(of: Data("secret-payload-name".utf8)) == nil)
            // The same bytes under another operation's UUID fail authentication.
            #expect { try cloud.decode(row, uuid: other.uuid) } throws: {
                ($0 as? CloudCoreError)?.code == .undecodableOperation
            }
        }
        let reopened = try Self.reopen(fixture, stages: [.zlib(), .aesGCM(keyring)])
        #expect(reopened.pipeline.operation(secret.uuid)?.payload(as: Upload.self)?.name == "secret-payload-name")
    }

    @Test func tagsAndAttachmentsGoWithTheirRows() throws {
        let fixture = try CloudFixture()
        try fixture.connection.readWrite { tx in
            for key in ["n1", "n2", "n3"] { try tx.setObject(key, forKey: key, inCollection: "notes") }
            try tx.setObject("x", forKey: "x", inCollection: "other")
            let cloud = try tx.cloudCore("cloud")
            for key in ["n1", "n2", "n3"] {
                try cloud.setTag(.text("etag-\(key)"), forKey: key, inCollection: "notes", identifier: "etag")
                try cloud.setTag(.integer(3), forKey: key, inCollection: "notes", identifier: "version")
                try cloud.attach(cloudID: "/notes/\(key)", forKey: key, inCollection: "notes")
                try cloud.attach(cloudID: "/shared", forKey: key, inCollection: "notes")
            }
            try cloud.attach(cloudID: "/shared", forKey: "x", inCollection: "other")
            #expect(throws: CloudCoreError.self) {
                try cloud.setTag(.integer(1), forKey: "nope", inCollection: "notes")
            }
        }
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.tag(forKey: "n1", inCollection: "notes", identifier: "etag") == .text("etag-n1"))
            #expect(
                try cloud.tags(forKey: "n1", inCollection: "notes") == [
                    "etag": .text("etag-n1"), "version": .integer(3),
                ])
            #expect(try cloud.cloudIDs(forKey: "n1", inCollection: "notes") == ["/notes/n1", "/shared"])
            #expect(try cloud.rows(attachedTo: "/shared").map(\.key) == ["n1", "n2", "n3", "x"])
            try cloud.detach(cloudID: "/shared", forKey: "n2", inCollection: "notes")
            try cloud.setTag(nil, forKey: "n2", inCollection: "notes", identifier: "version")
            #expect(try cloud.tags(forKey: "n2", inCollection: "notes") == ["etag": .text("etag-n2")])
            try cloud.removeAllTags(forKey: "n3", inCollection: "notes")
            #expect(try cloud.tags(forKey: "n3", inCollection: "notes").isEmpty)
            try tx.removeObject(forKey: "n1", inCollection: "notes")
            // A new row may reuse the rowid; it must not inherit anything.
            try tx.setObject("again", forKey: "n1", inCollection: "notes")
            #expect(try cloud.tags(forKey: "n1", inCollection: "notes").isEmpty)
            #expect(try cloud.cloudIDs(forKey: "n1", inCollection: "notes").isEmpty)
            #expect(try cloud.rows(attachedTo: "/shared").map(\.key) == ["n3", "x"])
        }
        try fixture.connection.readWrite { tx in
            try tx.removeAllObjects(inCollection: "notes")
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.rows(attachedTo: "/shared").map(\.key) == ["x"])
            #expect(try cloud.rows(attachedTo: "/notes/n3").isEmpty)
            try tx.removeAllObjectsInAllCollections()
            #expect(try cloud.rows(attachedTo: "/shared").isEmpty)
        }
    }

    /// As YapDatabase's pending attach: a row attached before it exists is attached when the
    /// transaction inserts it; one never inserted leaves nothing behind.
    @Test func aRowAttachedBeforeItIsInsertedIsAttachedWhenItIs() throws {
        let fixture = try CloudFixture()
        try fixture.connection.readWrite { tx in
            let cloud = try tx.cloudCore("cloud")
            try cloud.attach(cloudID: "/notes/later", forKey: "later", inCollection: "notes")
            try cloud.attach(cloudID: "/notes/dropped", forKey: "later", inCollection: "notes")
            try cloud.detach(cloudID: "/notes/dropped", forKey: "later", inCollection: "notes")
            try cloud.attach(cloudID: "/notes/never", forKey: "never", inCollection: "notes")
            #expect(try cloud.cloudIDs(forKey: "later", inCollection: "notes").isEmpty)
            try tx.setObject("text", forKey: "later", inCollection: "notes")
            #expect(try cloud.cloudIDs(forKey: "later", inCollection: "notes") == ["/notes/later"])
        }
        try fixture.connection.readWrite { tx in
            try tx.setObject("text", forKey: "never", inCollection: "notes")
            let cloud = try tx.cloudCore("cloud")
            #expect(try cloud.cloudIDs(forKey: "later", inCollection: "notes") == ["/notes/later"])
            #expect(try cloud.cloudIDs(forKey: "never", inCollection: "notes").isEmpty)
            #expect(try cloud.rows(attachedTo: "/notes/never").isEmpty)
        }
    }

    @Test func disabledFeaturesSaySo() throws {
        let test = try TestDatabase()
        let cloud = try CloudCore(
            options: CloudCoreOptions(operationTypes: [Upload.self], enablesTags: false, enablesAttachments: false))
        try test.database.register(cloud, withName: "cloud")
        try test.connection().readWrite { tx in
            try tx.setObject("v", forKey: "k", inCollection: "c")
            #expect { try tx.cloudCore("cloud").tag(forKey: "k", inCollection: "c") } throws: {
                ($0 as? CloudCoreError)?.code == .featureDisabled
            }
            #expect { try tx.cloudCore("cloud").attach(cloudID: "/k", forKey: "k", inCollection: "c") } throws: {
                ($0 as? CloudCoreError)?.code == .featureDisabled
            }
            try tx.removeObject(forKey: "k", inCollection: "c")
        }
    }
}
