public import Foundation

extension KeyCandidate {
    /// Unwraps the data key from an envelope key file and keys SQLCipher with it raw.
    static func keyFileCandidates(url: URL, passphrase: Data) throws -> [KeyCandidate] {
        throw DatabaseError(.invalidKey, "key files are not wired in yet", path: url.path)
    }
}
