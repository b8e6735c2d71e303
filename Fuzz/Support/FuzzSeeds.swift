public import Foundation

/// Writes a target's seed corpus when asked to, from real encodings made by the library itself.
///
/// Each target calls this from `LLVMFuzzerInitialize`. With `COFFER_FUZZ_WRITE_SEEDS=<directory>`
/// in the environment it writes one file per seed there and exits; otherwise it does nothing and
/// fuzzing starts. The seeds live with the target because only the target knows how its input
/// bytes are framed (for example the configuration byte in front of a blob).
public enum FuzzSeeds {
    /// The environment variable naming the directory to write seeds into.
    public static let variable = "COFFER_FUZZ_WRITE_SEEDS"

    /// Writes `make()`'s seeds (file name → bytes) and exits when the variable is set.
    public static func writeIfRequested(_ make: () throws -> [(name: String, bytes: Data)]) {
        guard let directory = ProcessInfo.processInfo.environment[variable], !directory.isEmpty else { return }
        do {
            let folder = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let seeds = try make()
            for seed in seeds {
                try seed.bytes.write(to: folder.appendingPathComponent(seed.name))
            }
            print("wrote \(seeds.count) seeds to \(directory)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("writing seeds failed: \(error)\n".utf8))
            exit(1)
        }
    }
}
