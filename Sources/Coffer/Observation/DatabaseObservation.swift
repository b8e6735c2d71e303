/// The value of a read, delivered at once and again after each commit that touched the read's
/// region, as an asynchronous sequence (made by ``Database/observe(_:fetch:)`` and its
/// convenience forms).
///
/// Nothing happens until iteration starts; each iteration is independent. It subscribes to the
/// database's commits first and then reads, so a commit made meanwhile is never missed. It then
/// delivers the first value, and reads again after every commit — from any connection of the
/// database — whose ``Changeset`` touched the region; commits elsewhere cost a check, not a read.
///
/// - A consumer that falls behind gets the latest value: one value is buffered, older ones are
///   dropped, and commits made during a read are coalesced into one more read.
/// - A read that throws ends the sequence with that error.
/// - Stopping the iteration (leaving the loop, cancelling its task) ends the observation: its
///   subscription and connection are released.
/// - Values are delivered after each relevant commit even when equal to the previous one, unless
///   the observation was made with ``removingDuplicates()`` (the key-list forms are).
///
/// Each running iteration holds a read connection of its own (and with it the database).
public struct DatabaseObservation<Value: Sendable>: AsyncSequence, Sendable {
    /// Each element is the read's value at one snapshot.
    public typealias Element = Value

    let database: Database
    let region: DatabaseRegion
    let fetch: @Sendable (ReadTransaction) throws -> Value
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    /// Starts the observation: subscribes to commits and queues the first read.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let runner = ObservationRunner(
            database: database, region: region, fetch: fetch, isDuplicate: isDuplicate, continuation: continuation)
        continuation.onTermination = { _ in runner.cancel() }
        runner.start()
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates the values of one observation.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.Iterator
        /// Set after the error or the end: the stream would throw its error again on every call.
        var isDone = false

        /// The next value, waiting for a relevant commit; nil once the observation ended.
        /// - Throws: the error of a read that failed, once; the observation has ended then.
        public mutating func next() async throws -> Value? {
            guard !isDone else { return nil }
            do {
                guard let value = try await base.next() else {
                    isDone = true
                    return nil
                }
                return value
            } catch {
                isDone = true
                throw error
            }
        }
    }
}

extension DatabaseObservation where Value: Equatable {
    /// The same observation, skipping a value equal to the one delivered before it.
    ///
    /// The comparison runs after each read, on the observation's queue, so a consumer is not woken
    /// for a commit that left the value as it was.
    public func removingDuplicates() -> DatabaseObservation {
        DatabaseObservation(database: database, region: region, fetch: fetch, isDuplicate: { $0 == $1 })
    }
}
