public import Foundation

/// Finding queued operations, as this transaction sees the queue.
extension CloudCoreTransaction {
    /// The queued operation with `uuid` (with its pipeline's current status), or nil.
    /// - Throws: ``CloudCoreError`` `.unknownOperationType` or `.undecodableOperation` when it is
    ///   queued but cannot be decoded.
    public func operation(_ uuid: UUID) throws -> CloudOperation? {
        try checkRegistered()
        guard let row = try storedRow(uuid) else { return nil }
        return try decode(row, uuid: uuid)
    }

    /// The queued operations of `pipeline` (or of every pipeline), graph by graph in commit order.
    ///
    /// Each graph is in the order the pipeline starts them. Undecodable operations are left out
    /// (see ``undecodableOperations()``).
    /// - Complexity: O(queued operations), each decoded.
    public func operations(inPipeline pipeline: String? = nil) throws -> [CloudOperation] {
        try graphs(inPipeline: pipeline).flatMap { $0 }
    }

    /// The queued operations of `pipeline` (or of every pipeline, graphs of equal number
    /// together), one array per graph in commit order, each in start order.
    /// - Complexity: O(queued operations), each decoded.
    public func graphs(inPipeline pipeline: String? = nil) throws -> [[CloudOperation]] {
        try checkRegistered()
        var byGraph: [(id: UInt64, graph: CloudCoreGraph)] = []
        try forEachRow(pipeline: pipeline) { uuid, row in
            guard let operation = try? decode(row, uuid: uuid) else { return }
            if byGraph.last?.id != row.graph { byGraph.append((row.graph, CloudCoreGraph(id: row.graph))) }
            byGraph[byGraph.count - 1].graph.insert([(uuid, operation)])
        }
        return byGraph.map(\.graph.operations)
    }

    /// The operations this transaction added or inserted (of `pipeline`, or all), in the order added,
    /// as they stand now.
    public func addedOperations(inPipeline pipeline: String? = nil) throws -> [CloudOperation] {
        try checkRegistered()
        return try addedOrder.compactMap { try operation($0) }.filter { pipeline == nil || $0.pipeline == pipeline }
    }

    /// The index among its pipeline's graphs of the graph holding `uuid` (0: the oldest), or nil
    /// when it is not queued.
    public func graphIndex(of uuid: UUID) throws -> Int? {
        try checkRegistered()
        guard let row = try storedRow(uuid) else { return nil }
        return try graphIDs(inPipeline: row.pipeline).firstIndex(of: row.graph)
    }

    /// The index the graph of this transaction's added operations has (or will have) in `pipeline`.
    /// - Throws: ``CloudCoreError`` `.unknownPipeline`.
    public func graphIndexForAddedOperations(inPipeline pipeline: String = CloudCore.defaultPipelineName) throws
        -> Int
    {
        try checkRegistered()
        guard runtime.pipelines[pipeline] != nil else {
            throw CloudCoreError(
                .unknownPipeline, "cloud core \"\(registeredName)\" has no pipeline \"\(pipeline)\"", pipeline: pipeline
            )
        }
        let ids = try graphIDs(inPipeline: pipeline)
        if let own = commit.graphID, let index = ids.firstIndex(of: own) { return index }
        return ids.count
    }

    /// Every queued operation `uuid` waits for, directly or through others.
    /// - Throws: ``CloudCoreError`` `.operationNotFound` when `uuid` is not queued.
    public func recursiveDependencies(of uuid: UUID) throws -> Set<UUID> {
        try checkRegistered()
        let (_, start) = try requireOperation(uuid)
        var found = Set<UUID>()
        var stack = Array(start.dependencies)
        while let next = stack.popLast() {
            guard next != uuid, !found.contains(next), let row = try storedRow(next) else { continue }
            found.insert(next)
            if let operation = try? decode(row, uuid: next) { stack.append(contentsOf: operation.dependencies) }
        }
        return found
    }

    /// The queued operations that cannot be decoded, one error each naming the operation and its pipeline.
    ///
    /// Their type is not in ``CloudCoreOptions/operationTypes``, or their bytes fail a stage. They
    /// stay queued (and block what waits for them) until skipped or readable again.
    public func undecodableOperations() throws -> [CloudCoreError] {
        try checkRegistered()
        var errors: [CloudCoreError] = []
        try forEachRow(pipeline: nil) { uuid, row in
            do throws(CloudCoreError) { _ = try decode(row, uuid: uuid) } catch { errors.append(error) }
        }
        return errors
    }
}
