import Foundation

extension KeyCandidate {
    /// Unwraps the data key from an envelope key file and keys SQLCipher with it raw.
    /// - Throws: ``DatabaseError`` `.wrongPassphrase` or `.damagedKeyFile` (distinct from a
    ///   damaged database), `.io` when the file cannot be read.
    static func keyFileCandidates(url: URL, passphrase: Data) throws -> [KeyCandidate] {
        do {
            let dataKey = try KeyFile.read(from: url).unwrap(passphrase: passphrase)
            return [dataKey.withUnsafeBytes { KeyCandidate.rawSpec(key: $0, salt: nil) }]
        } catch {
            throw DatabaseError(keyFileError: error, url: url)
        }
    }
}

extension DatabaseError {
    /// Maps a key-file failure to the public error, keeping the key file's path.
    init(keyFileError error: KeyFileError, url: URL) {
        let code: Code
        switch error.code {
        case .wrongPassphrase: code = .wrongPassphrase
        case .damaged, .unsupportedVersion: code = .damagedKeyFile
        case .io: code = .io
        default: code = .invalidKey
        }
        self.init(code, "key file: \(error.reason)", path: url.path, underlying: error)
    }
}
