import Coffer
import Foundation

extension CofferProcessSuite {
    /// Another process holding the file open (W2ps): this executable in its hidden
    /// `--child-mp-holder` mode, which opens the database, creates a marker file next to it, and
    /// closes the database once the marker is gone.
    ///
    struct Holder {
        private let process: SpawnedChild
        private let marker: URL

        /// The marker file of the holder of the database at `path`.
        static func marker(forDatabaseAt path: String) -> URL { URL(fileURLWithPath: path + ".holding") }

        /// Starts the child and waits until it has the file open.
        /// - Throws: ``BenchError`` when it cannot start or has not opened the file within a minute.
        init(path: String, context: SuiteContext) throws {
            marker = Self.marker(forDatabaseAt: path)
            process = try CofferProcessSuite.spawnChild(mode: "--child-mp-holder", path: path, context: context)
            let deadline = ContinuousClock.now + .seconds(60)
            while !FileManager.default.fileExists(atPath: marker.path) {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    process.terminate()
                    throw BenchError(.io, "the holder child did not open the file")
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }

        /// Removes the marker and waits for the child to close the file and exit.
        /// - Throws: ``BenchError`` when it failed.
        func release() throws {
            try? FileManager.default.removeItem(at: marker)
            let status = process.waitUntilExit()
            guard status == 0 else {
                throw BenchError(.io, "the holder child failed with status \(status)")
            }
        }
    }

    /// In the child: opens the file with multi-process support, creates the marker, and keeps
    /// the file open until the marker is removed.
    static func runHolderInChild(path: String, configuration: BenchConfiguration) throws {
        let database = try Database(
            url: URL(fileURLWithPath: path), options: options(configuration, multiProcess: true))
        let marker = Holder.marker(forDatabaseAt: path)
        guard FileManager.default.createFile(atPath: marker.path, contents: nil) else {
            throw BenchError(.io, "the holder child could not create \(marker.path)")
        }
        while FileManager.default.fileExists(atPath: marker.path) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        try database.close()
    }
}
