import Coffer
import Foundation
import Synchronization

/// W10's driver: one writer thread and R reader threads run side by side for a fixed time.
///
/// Each thread gets its own store handle from its `make…` closure (called on the thread, before the start signal,
/// so opening is never timed) and then calls its step closure until told to stop. A step does one unit of work
/// (a writer transaction, or a reader transaction of several reads) and returns how many operations it did.
enum ConcurrentRun {
    /// One step of work on a thread's own handle; returns the number of operations it did.
    typealias Step = () throws -> Int

    /// What one measurement did.
    struct Outcome: Sendable {
        /// Reads done by each reader, in reader order.
        var readsPerReader: [Int]
        /// Write transactions the writer committed.
        var writes: Int
        /// Time from the start signal until every thread had stopped.
        var seconds: Double
        /// CPU seconds each thread used while stepping: the writer first, then the readers in order.
        var cpuPerThread: [Double]
        /// CPU seconds the whole process used over the same window (so including background threads:
        /// checkpoints, notifications).
        var processCPU: Double

        /// Reads of all readers together.
        var reads: Int { readsPerReader.reduce(0, +) }
    }

    /// Runs one writer and `readers` readers for `duration` seconds.
    /// - Parameters:
    ///   - makeWriter: Called once on the writer thread; returns the writer's step.
    ///   - makeReader: Called once on each reader thread with the reader's index; returns its step.
    /// - Throws: `BenchError` with code `.baseline` naming the first failure of any thread.
    static func measure(
        readers: Int, duration: Double,
        makeWriter: @escaping @Sendable () throws -> Step,
        makeReader: @escaping @Sendable (Int) throws -> Step
    ) throws -> Outcome {
        let shared = Shared(threads: readers + 1)
        let group = DispatchGroup()
        func launch(_ slot: Int, _ make: @escaping @Sendable () throws -> Step) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                shared.work(slot: slot, make)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        launch(0, makeWriter)
        for reader in 0..<readers { launch(reader + 1, { try makeReader(reader) }) }

        shared.ready.wait()
        let clock = ContinuousClock()
        let start = clock.now
        let processCPUStart = ProcessStatus.processCPUSeconds()
        shared.begin()
        Thread.sleep(forTimeInterval: duration)
        shared.stop()
        group.wait()
        let processCPU = ProcessStatus.processCPUSeconds() - processCPUStart
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let (counts, cpu, failure) = shared.results()
        if let failure { throw BenchError(.baseline, "W10: \(failure)") }
        return Outcome(
            readsPerReader: Array(counts.dropFirst()), writes: counts.first ?? 0, seconds: seconds,
            cpuPerThread: cpu, processCPU: processCPU)
    }

    /// The state the threads share: a start gate, a stop flag, and each thread's count or failure.
    private final class Shared: Sendable {
        let ready: DispatchSemaphore
        private let threads: Int
        private let arrived = Atomic<Int>(0)
        private let gate = DispatchSemaphore(value: 0)
        private let stopping = Atomic<Bool>(false)
        private let counts: Locked<[Int]>
        private let cpu: Locked<[Double]>
        private let failure = Locked<String?>(nil)

        init(threads: Int) {
            self.threads = threads
            self.ready = DispatchSemaphore(value: 0)
            self.counts = Locked([Int](repeating: 0, count: threads))
            self.cpu = Locked([Double](repeating: 0, count: threads))
        }

        /// Opens the thread's handle, waits for the start signal, then steps until stopped (or on failure).
        func work(slot: Int, _ make: () throws -> Step) {
            var step: Step?
            do {
                step = try make()
            } catch {
                record(error)
            }
            if arrived.add(1, ordering: .acquiringAndReleasing).newValue == threads { ready.signal() }
            gate.wait()
            guard let step else { return }
            var done = 0
            let cpuStart = ProcessStatus.threadCPUSeconds()
            defer {
                let used = ProcessStatus.threadCPUSeconds() - cpuStart
                cpu.withLock { $0[slot] = used }
            }
            do {
                while !stopping.load(ordering: .relaxed) {
                    done += try step()
                }
            } catch {
                record(error)
                stop()
            }
            counts.withLock { $0[slot] = done }
        }

        func begin() {
            for _ in 0..<threads { gate.signal() }
        }

        func stop() {
            stopping.store(true, ordering: .relaxed)
        }

        func results() -> (counts: [Int], cpu: [Double], failure: String?) {
            (counts.withLock { $0 }, cpu.withLock { $0 }, failure.withLock { $0 })
        }

        private func record(_ error: any Error) {
            failure.withLock { if $0 == nil { $0 = "\(error)" } }
        }
    }
}
