import CofferFixtureSupport

import Coffer
import Foundation

/// The extension fixture: a secondary index whose table and `yap2` records persist in the file.
struct ExtensionFixtures {
    let context: GeneratorContext

    /// The index as the manifest records it.
    static let index = IndexSpec(
        name: "tasksByPriority", versionTag: "1",
        columns: [
            IndexSpec.Column(name: "priority", type: "INTEGER"), IndexSpec.Column(name: "title", type: "TEXT"),
            IndexSpec.Column(name: "done", type: "INTEGER"), IndexSpec.Column(name: "tag", type: "TEXT"),
        ],
        allowedCollections: ["tasks"])

    /// Writes the secondary-index fixture: rows before registration (population), rows after
    /// (hooks), an update and a removal.
    /// - Throws: ``DatabaseError`` or ``GeneratorError``.
    func make() throws {
        let recipe = FixtureDatabase.Recipe(
            key: .raw(FixtureKeys.rawKey), cipher: CipherSpec(pageSize: 4096),
            serializers: [
                CollectionSerializers(collection: "tasks", object: ChainSpec(codec: .taskItem)),
                CollectionSerializers(collection: "notes", object: ChainSpec(codec: .note)),
            ])
        let path = context.cofferPath("secondary-index.db")
        var finalTasks: [TaskItem.Keyed] = []
        var contents = try CofferFixtures.build(path, recipe: recipe, context: context) { database in
            try database.write([
                FixtureData.task("t1", "Write fixtures", 2, false),
                FixtureData.task("t2", "Review manifest", 1, true),
                FixtureRow("notes", "n1", Note(title: "Not indexed", body: "other collection", tags: [])),
            ])
            try database.open().register(Self.makeIndex(), withName: Self.index.name)
            try database.write([
                FixtureData.task("t3", "Ship", 5, false),
                FixtureData.task("t4", "Celebrate", 3, false),
                FixtureData.task("t5", "Cancelled", 4, false),
            ])
            try database.write([FixtureData.task("t1", "Write fixtures", 4, true)])
            try database.remove("t5", inCollection: "tasks")
            finalTasks = database.rows.compactMap { row in
                (row.object as? TaskItem).map { TaskItem.Keyed(key: row.key, item: $0) }
            }
        }
        contents.extensionNames = [Self.index.name]
        contents.secondaryIndexes = [
            IndexContents(name: Self.index.name, entries: finalTasks.map { Self.entry($0) })
        ]
        context.addDatabase(
            path,
            origin: context.origin(
                "a SecondaryIndex registered after two rows (population), then inserts, an update and a removal (hooks); its table and yap2 records persist"
            ),
            recipe: recipe, secondaryIndexes: [Self.index],
            checks: [Check(name: "contents and persisted index", expect: contents)])
    }

    /// The index the fixture was written with: `tag` is set only for priority 3 and above.
    static func makeIndex() -> SecondaryIndex {
        SecondaryIndex(
            setup: SecondaryIndexSetup([("priority", .integer), ("title", .text), ("done", .integer), ("tag", .text)]),
            handler: .byObject(TaskItem.self) { _, values, _, _, task in
                values["priority"] = task.priority
                values["title"] = task.title
                values["done"] = task.done
                if task.priority >= 3 { values["tag"] = "urgent" }
            },
            versionTag: index.versionTag, allowedCollections: .only(["tasks"]))
    }

    /// The index entry the handler derives for a task.
    private static func entry(_ task: TaskItem.Keyed) -> IndexContents.Entry {
        IndexContents.Entry(
            collection: "tasks", key: task.key,
            values: [
                "priority": .number(Double(task.item.priority)), "title": .string(task.item.title),
                "done": .number(task.item.done ? 1 : 0), "tag": task.item.priority >= 3 ? .string("urgent") : .null,
            ])
    }
}

extension TaskItem {
    /// A task with its row key.
    struct Keyed {
        var key: String
        var item: TaskItem
    }
}
