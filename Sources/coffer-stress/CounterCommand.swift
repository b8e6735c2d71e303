import ArgumentParser
import Coffer
import Foundation

/// `coffer-stress counter`: increments one shared counter in read-write transactions, with
/// multi-process support on, so two of these processes must together lose no increment.
struct CounterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "counter",
        abstract: "Increments the counter \"count\" in collection \"counters\"; prints each value committed.",
        discussion: """
            The value is read through the connection's object cache, so a cache that missed \
            another process's commit would lose increments. With --limit 0 it runs until killed.
            """)

    /// The collection and key of the counter.
    static let collection = "counters"
    static let key = "count"

    @Option(help: "The database file (created when missing).")
    var database: String

    @Option(help: "Increments to make (0: run until killed).")
    var limit: Int = 0

    @Flag(help: "Also write the value under its own key (\"v<value>\"), to check that none is torn.")
    var log = false

    @Flag(help: "Register the persistent view \"byValue\" (every counter row, by value) before writing.")
    var view = false

    @Flag(help: "Register \"byValue\" as a non-persistent view instead (kept in memory).")
    var memoryView = false

    @Flag(help: "After the last increment, keep the database open until killed.")
    var hold = false

    /// The view `--view` registers: every row of the collection in group "all", by value.
    static func byValue(isPersistent: Bool = true) -> AutoView {
        AutoView(
            grouping: ViewGrouping.object(Int.self) { _, group in group = "all" },
            sorting: ViewSorting.object(Int.self) { _, left, right in
                left.object < right.object
                    ? .orderedAscending : left.object > right.object ? .orderedDescending : .orderedSame
            },
            versionTag: "1", allowedCollections: .only([collection]), isPersistent: isPersistent)
    }

    func run() throws {
        Acknowledge.start()
        var options = DatabaseOptions()
        options.key = .raw(try StressKeys.key(StressKeys.keyVariable))
        options.multiProcessSupport = true
        let db = try Database(url: URL(fileURLWithPath: database), options: options)
        db.registerCodable(Int.self, forCollection: Self.collection)
        if view || memoryView { try db.register(Self.byValue(isPersistent: !memoryView), withName: "byValue") }
        let connection = try db.newConnection()
        Acknowledge.line("ready")
        var done = 0
        while limit == 0 || done < limit {
            let value = try connection.readWrite { tx in
                let next = (try tx.object(forKey: Self.key, inCollection: Self.collection, as: Int.self) ?? 0) + 1
                try tx.setObject(next, forKey: Self.key, inCollection: Self.collection)
                if log { try tx.setObject(next, forKey: "v\(next)", inCollection: Self.collection) }
                return next
            }
            Acknowledge.line("\(value)")
            done += 1
        }
        Acknowledge.line("done")
        while hold { sleep(1) }
    }
}
