public import Foundation

/// Queuing, changing and finishing operations.
extension CloudCoreTransaction {
    /// Queues `operation` in its pipeline, in the graph of this transaction's commit, and returns
    /// it as queued (with its graph number).
    ///
    /// Its dependencies must already be queued in the same pipeline (added earlier in this
    /// transaction or committed before). It exists once the transaction commits, and not at all
    /// if it rolls back.
    /// - Throws: ``CloudCoreError`` `.unknownPipeline`, `.unknownOperationType`,
    ///   `.dependencyNotFound`, `.duplicateOperation`, `.misuse` in a read-only transaction.
    @discardableResult
    public func add(_ operation: CloudOperation) throws -> CloudOperation {
        try beginChange()
        try checkNewOperation(operation)
        let graphID = commit.graphID ?? runtime.nextGraphID()
        commit.graphID = graphID
        let queued = try insertRow(operation, graphID: graphID)
        commit.pipelines[queued.pipeline, default: .init()].added.append(queued)
        addedOrder.append(queued.uuid)
        return queued
    }

    /// Queues `operation` in an existing graph of its pipeline: `graphIndex` 0 is the oldest graph
    /// still queued (the one a commit-graph pipeline runs now).
    ///
    /// For example, to resolve a conflict: insert the fix into graph 0 and ``modify(_:)`` the failed
    /// operation to depend on it.
    /// - Throws: ``CloudCoreError`` `.graphNotFound` for an index past the pipeline's graphs, and
    ///   as ``add(_:)``.
    @discardableResult
    public func insert(_ operation: CloudOperation, inGraph graphIndex: Int) throws -> CloudOperation {
        try beginChange()
        try checkNewOperation(operation)
        let graphs = try graphIDs(inPipeline: operation.pipeline)
        guard graphs.indices.contains(graphIndex) else {
            throw CloudCoreError(
                .graphNotFound,
                "cloud core \"\(registeredName)\": pipeline \"\(operation.pipeline)\" has \(graphs.count) graph(s), "
                    + "no graph \(graphIndex)", operation: operation.uuid, pipeline: operation.pipeline)
        }
        let graphID = graphs[graphIndex]
        let queued = try insertRow(operation, graphID: graphID)
        if graphID == commit.graphID {
            commit.pipelines[queued.pipeline, default: .init()].added.append(queued)
        } else {
            commit.pipelines[queued.pipeline, default: .init()].inserted.append(queued)
        }
        addedOrder.append(queued.uuid)
        return queued
    }

    /// Replaces a queued operation with `operation`, which has the same UUID and pipeline.
    ///
    /// A new payload, dependencies, priority or hold date; a running operation keeps running.
    /// - Throws: ``CloudCoreError`` `.operationNotFound`, `.misuse` for another pipeline,
    ///   `.dependencyNotFound`, `.dependencyCycle`, `.unknownOperationType`.
    @discardableResult
    public func modify(_ operation: CloudOperation) throws -> CloudOperation {
        try beginChange()
        guard let row = try storedRow(operation.uuid) else {
            throw CloudCoreError(
                .operationNotFound, "cloud core \"\(registeredName)\": no queued operation \(operation.uuid) to modify",
                operation: operation.uuid, pipeline: operation.pipeline)
        }
        guard row.pipeline == operation.pipeline else {
            throw CloudCoreError(
                .misuse,
                "cloud core \"\(registeredName)\": operation \(operation.uuid) is queued in pipeline \"\(row.pipeline)\"; "
                    + "it cannot move to \"\(operation.pipeline)\"", operation: operation.uuid, pipeline: row.pipeline)
        }
        try checkDependencies(of: operation)
        let cycle = try CloudCoreCycles.reaches(operation.uuid, from: operation.dependencies) { uuid in
            guard let row = try storedRow(uuid) else { return nil }
            return (try? decode(row, uuid: uuid))?.dependencies
        }
        if cycle {
            throw CloudCoreError(
                .dependencyCycle,
                "cloud core \"\(registeredName)\": the dependencies of operation \(operation.uuid) lead back to it",
                operation: operation.uuid, pipeline: operation.pipeline)
        }
        var queued = operation
        queued.graphID = row.graph
        let blob = try state.cloudCore.coder.encode(queued, registeredName: registeredName)
        try tables.run(sql.updateOperation, [.text(queued.operationType), .blob(blob), .blob(queued.uuid.storedBytes)])
        updateChange(of: queued.pipeline) { change in
            if let index = change.added.firstIndex(where: { $0.uuid == queued.uuid }) {
                change.added[index] = queued
            } else if let index = change.inserted.firstIndex(where: { $0.uuid == queued.uuid }) {
                change.inserted[index] = queued
            } else {
                change.modified[queued.uuid] = queued
            }
        }
        return queued
    }

    /// Marks a queued operation as completed: it leaves the queue when the transaction commits,
    /// and the operations that depended on it may start.
    /// - Throws: ``CloudCoreError`` `.operationNotFound` when it is not queued (already completed
    ///   or skipped, or never added).
    public func complete(_ uuid: UUID) throws {
        try finish(uuid, as: .completed)
    }

    /// Skips a queued operation: it leaves the queue without running (or without its result
    /// counting), and the operations that depended on it may start.
    ///
    /// An operation that cannot be decoded (its type is not registered) can be skipped too.
    /// - Throws: as ``complete(_:)``.
    public func skip(_ uuid: UUID) throws {
        try finish(uuid, as: .skipped)
    }

    /// Skips every queued operation (of `pipeline`, or of every pipeline) for which `test` is true,
    /// and returns their UUIDs.
    /// - Complexity: O(queued operations), each decoded once.
    /// - Throws: what `test` throws, and as ``skip(_:)``.
    @discardableResult
    public func skipOperations(
        inPipeline pipeline: String? = nil, where test: (CloudOperation) throws -> Bool
    ) throws -> [UUID] {
        try beginChange()
        var matched: [UUID] = []
        try forEachRow(pipeline: pipeline) { uuid, row in
            guard let operation = try? decode(row, uuid: uuid), try test(operation) else { return }
            matched.append(uuid)
        }
        for uuid in matched { try skip(uuid) }
        return matched
    }

    // MARK: Internals

    private func finish(_ uuid: UUID, as status: CloudOperation.Status) throws {
        try beginChange()
        guard let row = try storedRow(uuid) else {
            throw CloudCoreError(
                .operationNotFound,
                "cloud core \"\(registeredName)\": no queued operation \(uuid) to mark \(status)", operation: uuid)
        }
        try tables.run(sql.deleteOperation, [.blob(uuid.storedBytes)])
        updateChange(of: row.pipeline) { change in
            if let index = change.added.firstIndex(where: { $0.uuid == uuid }) {
                change.added.remove(at: index)
            } else if let index = change.inserted.firstIndex(where: { $0.uuid == uuid }) {
                change.inserted.remove(at: index)
            } else {
                change.modified.removeValue(forKey: uuid)
                change.removed[uuid] = status
            }
        }
        if !addedOrder.isEmpty { addedOrder.removeAll { $0 == uuid } }
    }

    /// Changes this transaction's record of `pipeline` in place (a copy would make every change
    /// of a large transaction copy the whole record).
    private func updateChange(of pipeline: String, _ body: (inout CloudCoreCommit.PipelineChange) -> Void) {
        body(&commit.pipelines[pipeline, default: .init()])
    }

    private func checkNewOperation(_ operation: CloudOperation) throws {
        guard runtime.pipelines[operation.pipeline] != nil else {
            throw CloudCoreError(
                .unknownPipeline,
                "cloud core \"\(registeredName)\" has no pipeline \"\(operation.pipeline)\"", operation: operation.uuid,
                pipeline: operation.pipeline)
        }
        try checkDependencies(of: operation)
    }

    private func checkDependencies(of operation: CloudOperation) throws {
        for dependency in operation.dependencies {
            let row = dependency == operation.uuid ? nil : try storedRow(dependency)
            guard let row, row.pipeline == operation.pipeline else {
                throw CloudCoreError(
                    .dependencyNotFound,
                    "cloud core \"\(registeredName)\": operation \(operation.uuid) depends on \(dependency), which is "
                        + "not queued in pipeline \"\(operation.pipeline)\"", operation: operation.uuid,
                    pipeline: operation.pipeline)
            }
        }
    }

    private func insertRow(_ operation: CloudOperation, graphID: UInt64) throws -> CloudOperation {
        var queued = operation
        queued.graphID = graphID
        queued.status = .pending
        let blob = try state.cloudCore.coder.encode(queued, registeredName: registeredName)
        do {
            try tables.run(
                sql.insertOperation,
                [
                    .blob(queued.uuid.storedBytes), .text(queued.pipeline), .integer(Int64(bitPattern: graphID)),
                    .text(queued.operationType), .blob(blob),
                ])
        } catch let error as DatabaseError where error.sqliteCode == 19 {
            throw CloudCoreError(
                .duplicateOperation, "cloud core \"\(registeredName)\": operation \(queued.uuid) is already queued",
                operation: queued.uuid, pipeline: queued.pipeline, underlying: error)
        }
        return queued
    }
}
