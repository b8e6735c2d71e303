public import Foundation

/// A fresh directory for one test, removed with everything in it when released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a uniquely named directory under the system's temporary directory.
    public init(_ label: String = "coffer-test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A file URL inside the directory.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}
