// The code of GroupedViews.md, block by block.

import Coffer
import Foundation

/// Runs the article's blocks in order on one database in `directory`.
func groupedViews(in directory: URL) throws {
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
}
