public import Coffer
public import Foundation

/// Helpers shared by Coffer's test targets.
public enum TestSupport {
    /// 32 random bytes, for raw keys.
    public static func randomKey() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Options with a random raw key (fast: no key derivation).
    public static func rawKeyOptions(_ key: Data = randomKey()) -> DatabaseOptions {
        var options = DatabaseOptions()
        options.key = .raw(key)
        return options
    }

    /// Whether `needle` occurs anywhere in the file (false when the file does not exist).
    public static func file(_ url: URL, contains needle: Data) -> Bool {
        guard let contents = try? Data(contentsOf: url) else { return false }
        return contents.range(of: needle) != nil
    }

    /// The file's bytes, or empty when it does not exist.
    public static func bytes(of url: URL) -> Data {
        (try? Data(contentsOf: url)) ?? Data()
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
    public static func wait(timeout: Duration = .seconds(5), until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }
}
