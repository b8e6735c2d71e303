import Crypto
import Foundation

/// Computes the SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802, RFC 7677),
/// so that enrolling a device sends the server a verifier, never the password itself.
enum ScramVerifier {
    /// PostgreSQL's default iteration count (scram_iterations).
    static let iterations = 4096

    /// `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64 parts, as in pg_authid.
    ///
    /// The password must be printable ASCII: SASLprep leaves that unchanged, so this verifier
    /// matches what every client (libpq normalises, postgres-nio does not) proves at login.
    static func verifier(password: String, salt: Data) throws(SyncError) -> String {
        guard !password.isEmpty, password.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .misuse("a device password must be non-empty printable ASCII")
        }
        let salted = saltedPassword(Data(password.utf8), salt: salt, iterations: iterations)
        let clientKey = Data(HMAC<SHA256>.authenticationCode(for: Data("Client Key".utf8), using: salted))
        let storedKey = Data(SHA256.hash(data: clientKey))
        let serverKey = Data(HMAC<SHA256>.authenticationCode(for: Data("Server Key".utf8), using: salted))
        return "SCRAM-SHA-256$\(iterations):\(salt.base64EncodedString())$"
            + "\(storedKey.base64EncodedString()):\(serverKey.base64EncodedString())"
    }

    /// A verifier under a fresh random 16-byte salt.
    static func verifier(password: String) throws(SyncError) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return try verifier(password: password, salt: salt)
    }

    /// Hi() of RFC 5802: PBKDF2-HMAC-SHA256 with one output block, which is all SCRAM needs.
    static func saltedPassword(_ password: Data, salt: Data, iterations: Int) -> SymmetricKey {
        let key = SymmetricKey(data: password)
        var block = Data(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var result = block
        for _ in 1..<iterations {
            block = Data(HMAC<SHA256>.authenticationCode(for: block, using: key))
            for index in result.indices { result[index] ^= block[index] }
        }
        return SymmetricKey(data: result)
    }
}
