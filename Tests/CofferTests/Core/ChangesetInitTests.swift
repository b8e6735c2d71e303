import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Changesets built by hand, as a notification handler's tests would build them.
@Suite struct ChangesetInitTests {
    static let n1 = CollectionKey(collection: "notes", key: "n1")
    static let n2 = CollectionKey(collection: "notes", key: "n2")
    static let n3 = CollectionKey(collection: "notes", key: "n3")
    static let t1 = CollectionKey(collection: "tags", key: "t1")

    @Test func aHandBuiltChangesetAnswersEveryQuery() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        let changeset = Changeset(
            snapshot: 7, connectionName: "writer", objectChanges: [Self.n1], metadataChanges: [Self.n2],
            insertedKeys: [Self.n3], removedKeys: [Self.t1], customObject: "note")
        #expect(changeset.snapshot == 7)
        #expect(changeset.connectionName == "writer")
        #expect(changeset.customObject as? String == "note")
        #expect(changeset.objectChanges == [Self.n1, Self.n3])
        #expect(changeset.metadataChanges == [Self.n2, Self.n3])
        #expect(changeset.insertedKeys == [Self.n3])

        let all = [changeset]
        #expect(connection.hasChange(forKey: "n1", inCollection: "notes", in: all))
        #expect(connection.hasObjectChange(forKey: "n1", inCollection: "notes", in: all))
        #expect(!connection.hasMetadataChange(forKey: "n1", inCollection: "notes", in: all))
        #expect(connection.hasMetadataChange(forKey: "n2", inCollection: "notes", in: all))
        #expect(!connection.hasObjectChange(forKey: "n2", inCollection: "notes", in: all))
        #expect(connection.hasObjectChange(forKey: "n3", inCollection: "notes", in: all))
        #expect(connection.hasChange(forKey: "t1", inCollection: "tags", in: all))
        #expect(!connection.hasChange(forKey: "n9", inCollection: "notes", in: all))
        #expect(connection.hasObjectChange(forCollection: "notes", in: all))
        #expect(!connection.didClearCollection("notes", in: all))
        var keys: [String] = []
        connection.enumerateChangedKeys(inCollection: "notes", in: all) { key, _ in keys.append(key) }
        #expect(keys.sorted() == ["n1", "n2", "n3"])
    }

    @Test func aHandBuiltResetAnswersYesToEveryQuestion() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        let reset = [Changeset(snapshot: 9, isReset: true)]
        #expect(connection.hasChange(forKey: "any", inCollection: "thing", in: reset))
        #expect(connection.hasMetadataChange(forCollection: "notes", in: reset))
        #expect(connection.didClearAllCollections(in: reset))
        #expect(reset[0].hasExtensionChange("staff"))
        let registered = Changeset(registeredExtensions: ["staff"], unregisteredExtensions: ["old"])
        #expect(registered.hasExtensionChange("staff") && registered.hasExtensionChange("old"))
        #expect(!registered.hasExtensionChange("other"))
        #expect(!connection.hasChange(forKey: "any", inCollection: "thing", in: [registered]))
    }

    @Test func clearedCollectionsCountAsChangesOfEveryKey() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        let cleared = [Changeset(removedCollections: ["notes"])]
        #expect(connection.didClearCollection("notes", in: cleared))
        #expect(connection.hasChange(forKey: "anything", inCollection: "notes", in: cleared))
        #expect(!connection.hasChange(forKey: "anything", inCollection: "tags", in: cleared))
        let everything = [Changeset(allKeysRemoved: true)]
        #expect(connection.didClearAllCollections(in: everything))
        #expect(connection.hasChange(forKey: "t1", inCollection: "tags", in: everything))
        #expect(!connection.hasChange(forKey: "n1", inCollection: "notes", in: [Changeset()]))
    }

    @Test func aNotificationHandlerCanBeFedAHandBuiltChangeset() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        let seen = Locked(false)
        let handler: (Notification) -> Void = { notification in
            guard let changeset = notification.userInfo?[Database.changesetKey] as? Changeset else { return }
            if connection.hasObjectChange(forKey: "n1", inCollection: "notes", in: [changeset]) {
                seen.withLock { $0 = true }
            }
        }
        handler(
            Notification(
                name: Database.modifiedNotification, object: nil,
                userInfo: [Database.changesetKey: Changeset(objectChanges: [Self.n1])]))
        #expect(seen.withLock { $0 })
    }
}
