import Coffer

// Small non-persistent extensions whose flushes write rows, for the dependency-order and
// repeated-flush tests. Each logs what it does into a shared list the test reads.

/// Logs every hook and flush it gets, as `"<label> <event>"`.
///
/// It buffers one piece of work per insert, so every write that inserts also gives it a flush.
struct Tracer: DatabaseExtension {
    let kind = "Tracer"
    var label: String
    var log: Shared<[String]>
    var dependencies: Set<String> = []
    var derivedCollections: AllowList<String>? = nil

    var isPersistent: Bool { false }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { _ in TracerTransaction(tracer: self) }
    }
}

/// Records each hook of one transaction.
final class TracerTransaction: ExtensionTransaction {
    private let tracer: Tracer
    private var pending = false

    init(tracer: Tracer) {
        self.tracer = tracer
    }

    func willInsert(_ row: ExtensionRow) throws { record("willInsert") }
    func didInsert(_ row: ExtensionRow) throws {
        record("didInsert")
        pending = true
    }
    func willUpdate(_ row: ExtensionRow) throws { record("willUpdate") }
    func didUpdate(_ row: ExtensionRow) throws { record("didUpdate") }
    func willReplaceObject(_ row: ExtensionRow) throws { record("willReplaceObject") }
    func didReplaceObject(_ row: ExtensionRow) throws { record("didReplaceObject") }
    func willReplaceMetadata(_ row: ExtensionRow) throws { record("willReplaceMetadata") }
    func didReplaceMetadata(_ row: ExtensionRow) throws { record("didReplaceMetadata") }
    func didTouch(_ row: ExtensionRow, object: Bool, metadata: Bool) throws { record("didTouch") }
    func willRemove(_ row: CollectionKey, rowid: Int64) throws { record("willRemove") }
    func didRemove(_ row: CollectionKey, rowid: Int64) throws { record("didRemove") }
    func willRemoveAll(inCollection collection: String) throws { record("willRemoveAll") }
    func didRemoveAll(inCollection collection: String) throws { record("didRemoveAll") }
    func willRemoveAllCollections() throws { record("willRemoveAllCollections") }
    func didRemoveAllCollections() throws { record("didRemoveAllCollections") }

    var hasPendingChanges: Bool { pending }

    func flushPendingChanges() throws {
        pending = false
        record("flush")
    }

    private func record(_ event: String) {
        tracer.log.append("\(tracer.label) \(event)")
    }
}

/// Where a ``Relay`` writes when a row is inserted into a collection it watches.
struct RelayTarget: Sendable {
    var collection: String
    var key: String
}

/// Answers an insert into a watched collection by writing a row elsewhere, in its next flush:
/// chained relays make a cascade that takes one flush round per step.
struct Relay: DatabaseExtension {
    let kind = "Relay"
    var label: String
    /// Watched collection → the row to write.
    var rules: [String: RelayTarget]
    var log: Shared<[String]>

    var isPersistent: Bool { false }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { RelayTransaction(relay: self, context: $0) }
    }
}

/// Buffers the rows a relay owes and writes them when flushed.
final class RelayTransaction: ExtensionTransaction {
    private let relay: Relay
    private let context: ExtensionContext
    private var owed: [RelayTarget] = []

    init(relay: Relay, context: ExtensionContext) {
        self.relay = relay
        self.context = context
    }

    func didInsert(_ row: ExtensionRow) throws {
        if let target = relay.rules[row.collection] { owed.append(target) }
    }

    var hasPendingChanges: Bool { !owed.isEmpty }

    func flushPendingChanges() throws {
        let work = owed
        owed = []
        let tx = try context.writeTransaction()
        for target in work {
            relay.log.append("\(relay.label) \(target.collection)/\(target.key)")
            try tx.setObject("relayed", forKey: target.key, inCollection: target.collection)
        }
    }

    func didRollback() {
        owed = []
    }
}

/// Extends a chain of rows `n0`, `n1`, … in collection `chain` up to `n<length>`: each insert
/// owes the next row, and one flush drains the whole chain, its own writes included.
struct Chain: DatabaseExtension {
    let kind = "Chain"
    var length: Int
    /// How often the chain was flushed.
    var flushes: Shared<Int>

    var isPersistent: Bool { false }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { ChainTransaction(chain: self, context: $0) }
    }
}

/// Owes the next link of each link inserted, and writes links until none is owed.
final class ChainTransaction: ExtensionTransaction {
    private let chain: Chain
    private let context: ExtensionContext
    private var owed: [Int] = []

    init(chain: Chain, context: ExtensionContext) {
        self.chain = chain
        self.context = context
    }

    func didInsert(_ row: ExtensionRow) throws {
        guard row.collection == "chain", row.key.hasPrefix("n"), let link = Int(row.key.dropFirst()),
            link < chain.length
        else { return }
        owed.append(link + 1)
    }

    var hasPendingChanges: Bool { !owed.isEmpty }

    func flushPendingChanges() throws {
        chain.flushes.update { $0 += 1 }
        let tx = try context.writeTransaction()
        // Each write owes the next link to this very object: drained here, in one round.
        while let link = owed.popLast() {
            try tx.setObject(link, forKey: "n\(link)", inCollection: "chain")
        }
    }

    func didRollback() {
        owed = []
    }
}

/// Answers `to` written into row `loop/<key>` with `answer` in its next flush: two of them
/// answering each other never converge.
struct PingPong: DatabaseExtension {
    let kind = "PingPong"
    var to: String
    var answer: String

    var isPersistent: Bool { false }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { PingPongTransaction(pingPong: self, context: $0) }
    }
}

/// Owes an answer for each row of `loop` that holds what it answers to.
final class PingPongTransaction: ExtensionTransaction {
    private let pingPong: PingPong
    private let context: ExtensionContext
    private var owed: Set<String> = []

    init(pingPong: PingPong, context: ExtensionContext) {
        self.pingPong = pingPong
        self.context = context
    }

    func didInsert(_ row: ExtensionRow) throws { try react(to: row) }
    func didUpdate(_ row: ExtensionRow) throws { try react(to: row) }

    var hasPendingChanges: Bool { !owed.isEmpty }

    func flushPendingChanges() throws {
        let work = owed
        owed = []
        let tx = try context.writeTransaction()
        for key in work.sorted() { try tx.setObject(pingPong.answer, forKey: key, inCollection: "loop") }
    }

    func didRollback() {
        owed = []
    }

    private func react(to row: ExtensionRow) throws {
        guard row.collection == "loop", try row.object.value(as: String.self) == pingPong.to else { return }
        owed.insert(row.key)
    }
}

/// Claims pending work on every round and never does any: rounds that change nothing.
struct Procrastinator: DatabaseExtension {
    let kind = "Procrastinator"
    var isPersistent: Bool { false }

    func makeConnectionState(_ registration: ExtensionRegistration) -> any ExtensionConnectionState {
        StatelessConnectionState { _ in ProcrastinatorTransaction() }
    }
}

/// Has work as soon as a row is inserted, and still has it after every flush.
final class ProcrastinatorTransaction: ExtensionTransaction {
    private var pending = false

    func didInsert(_ row: ExtensionRow) throws { pending = true }

    var hasPendingChanges: Bool { pending }

    func flushPendingChanges() throws {}
}
