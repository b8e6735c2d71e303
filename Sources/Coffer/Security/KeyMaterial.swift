import CofferSQLite
import Crypto
import CryptoExtras
import Foundation

/// One way to key a handle: the exact bytes handed to SQLCipher's key call.
struct KeyCandidate: Sendable {
    /// A passphrase, or a raw key spec `x'<hex>'`, as bytes.
    let bytes: SecretBytes
    /// Whether SQLCipher will run PBKDF2 on these bytes.
    let isPassphrase: Bool
}

extension KeyCandidate {
    /// Builds the raw key spec `x'<64 hex key>[<32 hex salt>]'` in a wipeable buffer.
    static func rawSpec(key: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer?) -> KeyCandidate {
        let hexCount = (key.count + (salt?.count ?? 0)) * 2
        let bytes = SecretBytes(count: hexCount + 3) { out in
            out[0] = UInt8(ascii: "x")
            out[1] = UInt8(ascii: "'")
            var i = writeHex(key, into: out, at: 2)
            if let salt { i = writeHex(salt, into: out, at: i) }
            out[i] = UInt8(ascii: "'")
        }
        return KeyCandidate(bytes: bytes, isPassphrase: false)
    }

    /// Writes `bytes` as lowercase hex digits into `out` from `start`; returns the index after them.
    private static func writeHex(
        _ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer, at start: Int
    ) -> Int {
        let digits: StaticString = "0123456789abcdef"
        var index = start
        for byte in bytes {
            out[index] = digits.utf8Start[Int(byte >> 4)]
            out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
            index += 2
        }
        return index
    }

    /// Resolves a ``DatabaseKey`` into the candidates to try, in order.
    /// - Throws: ``DatabaseError`` `.invalidKey` for empty or malformed keys.
    static func candidates(for key: DatabaseKey) throws -> [KeyCandidate] {
        switch key {
        case .passphrase(let data):
            guard !data.isEmpty else { throw DatabaseError(.invalidKey, "the passphrase is empty") }
            return [KeyCandidate(bytes: SecretBytes(copying: data), isPassphrase: true)]
        case .rawKey(let data, salt: nil):
            guard data.count == 32 else {
                throw DatabaseError(.invalidKey, "a raw key must be 32 bytes, got \(data.count)")
            }
            return [data.withUnsafeBytes { rawSpec(key: $0, salt: nil) }]
        case .rawKey(let keyData, salt: let salt?):
            guard keyData.count == 32, salt.count == 16 else {
                throw DatabaseError(
                    .invalidKey, "a raw key with salt needs 32 + 16 bytes, got \(keyData.count) + \(salt.count)")
            }
            return keyData.withUnsafeBytes { k in salt.withUnsafeBytes { s in [rawSpec(key: k, salt: s)] } }
        case .keyFile(let url, passphrase: let passphrase):
            return try keyFileCandidates(url: url, passphrase: passphrase)
        case .candidates(let provider):
            let keys: [DatabaseKey]
            do {
                keys = try provider()
            } catch {
                throw DatabaseError(.invalidKey, "the key provider failed: \(type(of: error))")
            }
            guard !keys.isEmpty else { throw DatabaseError(.invalidKey, "the key provider returned no key") }
            return try keys.flatMap { try candidates(for: $0) }
        }
    }

    /// SQLCipher 3's page key for a passphrase: PBKDF2-HMAC-SHA1(passphrase, file salt, iterations, 32).
    ///
    /// Keying later handles with this raw key skips the KDF; DESIGN.md §3 records the check
    /// against SQLCipher 3.4.1, and a test proves it on every run.
    func derivedRawSpec(salt: Data, iterations: Int) throws -> KeyCandidate {
        let key = try bytes.withUnsafeBytes { passphrase in
            try KDF.Insecure.PBKDF2.deriveKey(
                from: passphrase, salt: salt, using: .insecureSHA1, outputByteCount: 32,
                unsafeUncheckedRounds: iterations)
        }
        return key.withUnsafeBytes { k in salt.withUnsafeBytes { s in KeyCandidate.rawSpec(key: k, salt: s) } }
    }

    /// The length of `x'<64 hex digits>'`.
    private static let unsaltedSpecCount = 2 + 64 + 1

    /// Whether this is a raw key spec without a salt (SQLCipher then reads the salt from the file).
    var isUnsaltedRawKey: Bool {
        !isPassphrase && bytes.withUnsafeBytes { $0.count } == Self.unsaltedSpecCount
    }

    /// This raw key with `salt` added to its spec (`x'<key><salt>'`); a passphrase, or a raw key
    /// that already names its salt, is returned as it is.
    ///
    /// Keyed with a salt, SQLCipher does not read the salt from the file itself. It matters
    /// because SQLCipher 3.4.1 ignores a failing read there and makes up a random salt, so a
    /// transient I/O error while keying a handle used to surface as `.wrongKey`/`.notADatabase`.
    func salted(with salt: Data) -> KeyCandidate {
        guard isUnsaltedRawKey, salt.count == 16 else { return self }
        let unsaltedCount = Self.unsaltedSpecCount
        let salted = bytes.withUnsafeBytes { spec in
            SecretBytes(count: unsaltedCount + 32) { out in
                for index in 0..<(unsaltedCount - 1) { out[index] = spec[index] }
                let end = salt.withUnsafeBytes { Self.writeHex($0, into: out, at: unsaltedCount - 1) }
                out[end] = UInt8(ascii: "'")
            }
        }
        return KeyCandidate(bytes: salted, isPassphrase: false)
    }

    /// SQLCipher's salt: the first 16 bytes of the file at `path`, when the file has them.
    ///
    /// Closing the descriptor it reads with drops every POSIX lock this process holds on the
    /// file, SQLite's included: while a handle of this process has the file open, reopen the
    /// handles afterwards (see `DatabaseOpener`).
    static func fileSalt(atPath path: String) -> Data? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let salt = try? file.read(upToCount: 16), salt.count == 16 else { return nil }
        return salt
    }

    /// This passphrase's page key for a file with `salt` (or, when nil, the salt read from the file
    /// at `path`), as a raw key spec: handles keyed with it skip the KDF.
    /// - Throws: ``DatabaseError`` `.io` when the file has no salt, `.invalidKey` when the KDF fails.
    func derivedRawSpec(salt: Data? = nil, forFileAt path: String, iterations: Int) throws -> KeyCandidate {
        guard let salt = salt ?? Self.fileSalt(atPath: path) else {
            throw DatabaseError(.io, "cannot read the database salt", path: path)
        }
        do {
            return try derivedRawSpec(salt: salt, iterations: iterations)
        } catch {
            throw DatabaseError(.invalidKey, "key derivation failed", path: path)
        }
    }
}
