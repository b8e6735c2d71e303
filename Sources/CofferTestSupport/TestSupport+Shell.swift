public import Foundation

extension TestSupport {
    /// The `sqlcipher` shell, when installed (scripts/dev.sh installs it).
    public static var sqlcipherShell: URL? {
        ["/usr/bin/sqlcipher", "/usr/local/bin/sqlcipher"].first { FileManager.default.fileExists(atPath: $0) }
            .map { URL(fileURLWithPath: $0) }
    }

    /// Runs `script` in the `sqlcipher` shell on `database`, keyed with the raw key `key`
    /// (an independent reader: proves what someone holding only the SQLCipher key can see).
    /// Returns everything the shell printed.
    public static func runSQLCipherShell(_ shell: URL, database: URL, rawKey key: Data, pageSize: Int = 4096,
                                         script: String) throws -> String {
        let hexKey = key.map { String(format: "%02x", $0) }.joined()
        let process = Process()
        process.executableURL = shell
        process.arguments = [database.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(
            // `.timeout` makes the shell wait out a lock a just-released Database (or its background
            // checkpoint) may still hold, instead of failing at once with "database is locked".
            Data(".timeout 10000\nPRAGMA key = \"x'\(hexKey)'\";\nPRAGMA cipher_page_size = \(pageSize);\n\(script)\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
