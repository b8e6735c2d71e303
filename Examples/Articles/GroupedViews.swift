// The code of GroupedViews.md, block by block.

import Coffer
import Foundation

/// Runs the article's blocks in order on one database in `directory`.
/// Its last block iterates updates in a task: that part is returned, for the caller to await.
func groupedViews(in directory: URL) throws -> () async throws -> Void {
    let db = try openDatabase(in: directory, named: "views")  // harness
    let connection = try db.newConnection()  // harness
    struct Message: Codable, Sendable {
        var text: String
    }

    struct MessageInfo: Codable, Sendable {
        var conversation: String
        var sent: Date
    }

    let inbox = AutoView(
        grouping: .metadata(MessageInfo.self) { row, group in group = row.metadata.conversation },
        sorting: .metadata(MessageInfo.self) { _, left, right in
            left.metadata.sent < right.metadata.sent ? .orderedAscending
                : left.metadata.sent > right.metadata.sent ? .orderedDescending : .orderedSame
        },
        allowedCollections: .only(["messages"]))
    try db.register(inbox, withName: "inbox")
    let messages = TypedCollection<Message, MessageInfo>("messages")  // harness
    let start = Date(timeIntervalSinceReferenceDate: 800_000_000)  // harness
    try connection.readWrite { tx in  // harness
        for (index, conversation) in ["team", "family", "team"].enumerated() {  // harness
            let info = MessageInfo(conversation: conversation, sent: start + Double(index))  // harness
            try tx.set(Message(text: "hello \(index)"), forKey: "m\(index)", in: messages, metadata: info)  // harness
        }  // harness
    }  // harness

    try connection.read { tx in
        let view = try tx.extension("inbox", as: AutoViewTransaction.self)
        let conversations = try view.groups()
        let latest = try view.key(at: view.numberOfItems(inGroup: "team") - 1, inGroup: "team")
        let place = try view.index(forKey: "m1", inCollection: "messages")
        try view.enumerateKeys(inGroup: "team", reverse: true) { row, index, stop in
            print(index, row.key)
        }
    }
    try connection.read { tx in  // harness
        let view = try tx.extension("inbox", as: AutoViewTransaction.self)  // harness
        let conversations = try view.groups()  // harness
        try expect(conversations == ["family", "team"], "groups: \(conversations)")  // harness
        let latest = try view.key(at: view.numberOfItems(inGroup: "team") - 1, inGroup: "team")  // harness
        try expect(latest?.key == "m2", "latest: \(String(describing: latest))")  // harness
        let place = try view.index(forKey: "m1", inCollection: "messages")  // harness
        try expect(place?.group == "family" && place?.index == 0, "place of m1")  // harness
    }  // harness

    let ui = try db.newConnection()
    _ = try ui.beginLongLivedReadTransaction()
    var mappings = ViewMappings(groups: ["team", "family"], view: "inbox")
    mappings.update(groupCounts: try ui.read { tx in
        try tx.extension("inbox", as: AutoViewTransaction.self).groupCounts()
    })
    try connection.readWrite { tx in  // harness
        let info = MessageInfo(conversation: "team", sent: start - 1)  // harness
        try tx.set(Message(text: "earliest"), forKey: "m3", in: messages, metadata: info)  // harness
    }  // harness

    let changesets = try ui.beginLongLivedReadTransaction()
    let records = changesets.flatMap { $0.viewChangeRecords(inView: "inbox") }
    let counts = try ui.read { tx in try tx.extension("inbox", as: AutoViewTransaction.self).groupCounts() }
    let changes = ViewChanges.advance(&mappings, groupCounts: counts, records: records)
    if changes.isReset {
        // The reader fell too far behind: reload the whole list.
    } else {
        for change in changes.rowChanges {
            print(change.kind, change.originalIndexPath as Any, change.finalIndexPath as Any)
        }
    }
    try expect(changes.rowChanges.count == 1, "one row inserted: \(changes.rowChanges)")  // harness
    try expect(changes.rowChanges.first?.finalIndexPath == ViewIndexPath(section: 0, row: 0), "at the top")  // harness
    _ = try ui.endLongLivedReadTransaction()  // harness

    try db.register(ManualView(), withName: "pinned")
    try connection.readWrite { tx in
        let pinned = try tx.extension("pinned", as: ManualViewTransaction.self)
        try pinned.addKey("m2", inCollection: "messages", toGroup: "team")
        try pinned.insertKey("m0", inCollection: "messages", at: 0, inGroup: "team")
        if try !pinned.addKey("m0", inCollection: "messages", toGroup: "family") {
            // A row has one place in the view: remove it from "team" before adding it elsewhere.
        }
    }
    try connection.read { tx in  // harness
        let pinned = try tx.extension("pinned", as: ManualViewTransaction.self)  // harness
        var keys: [String] = []  // harness
        try pinned.enumerateKeys(inGroup: "team") { row, _, _ in keys.append(row.key) }  // harness
        try expect(keys == ["m0", "m2"], "pinned: \(keys)")  // harness
        try expect(try pinned.groups() == ["team"], "one group")  // harness
    }  // harness

    let greetings = FilteredView(
        parentViewName: "inbox",
        filtering: .object(Message.self) { _, row in row.object.text.hasPrefix("hello") })
    try db.register(greetings, withName: "greetings")
    func keys(_ name: String, _ group: String) throws -> [String] { try viewKeys(connection, name, group) }  // harness
    try expect(try keys("greetings", "team") == ["m0", "m2"], "greetings")  // harness

    try connection.readWrite { tx in
        try tx.extension("inbox", as: AutoViewTransaction.self).setSorting(
            .metadata(MessageInfo.self) { _, left, right in
                left.metadata.sent > right.metadata.sent ? .orderedAscending
                    : left.metadata.sent < right.metadata.sent ? .orderedDescending : .orderedSame
            },
            versionTag: "newest-first")
    }
    try expect(try keys("inbox", "team") == ["m2", "m0", "m3"], "newest first")  // harness
    try expect(try keys("greetings", "team") == ["m2", "m0"], "the filter follows")  // harness
    func updates() async throws {  // harness
        let shown = Locked(0)  // harness
        let writer = Task {  // harness
            try await Task.sleep(for: .milliseconds(20))  // harness
            try await connection.readWrite { tx in  // harness
                let info = MessageInfo(conversation: "family", sent: start + 10)  // harness
                try tx.set(Message(text: "hello again"), forKey: "m4", in: messages, metadata: info)  // harness
            }  // harness
        }  // harness
        func reload(_ mappings: ViewMappings) { shown.withLock { $0 = -1 } }  // harness
        func apply(_ changes: ViewChangeSet, _ mappings: ViewMappings) {  // harness
            shown.withLock { $0 = mappings.numberOfItems(inGroup: "family") }  // harness
        }  // harness
        var screenClosed: Bool { shown.withLock { $0 } == 2 }  // harness
        for try await update in ui.viewUpdates(ViewMappings(groups: ["team", "family"], view: "inbox")) {
            if update.changes.isReset {
                reload(update.mappings)
            } else {
                apply(update.changes, update.mappings)
            }
            if screenClosed { break }
        }
        try await writer.value  // harness
        try expect(try viewKeys(ui, "greetings", "family") == ["m4", "m1"], "greetings in family")  // harness
        _ = try ui.endLongLivedReadTransaction()  // harness
    }  // harness
    return updates  // harness
}

/// The keys of `group` of the view `name`, in order, as `connection` reads them.
func viewKeys(_ connection: Connection, _ name: String, _ group: String) throws -> [String] {
    try connection.read { tx in
        var keys: [String] = []
        try tx.extension(name, as: ViewTransaction.self).enumerateKeys(inGroup: group) { row, _, _ in
            keys.append(row.key)
        }
        return keys
    }
}
