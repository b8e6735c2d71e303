public import Coffer
import Crypto
public import Foundation

/// Carries a new device's credentials to it, sealed under a passphrase the user types on both
/// sides: Coffer's key-file envelope wraps a random file key under the passphrase, and the
/// credentials are AES-256-GCM under that key.
///
/// The file is JSON: `{"format": "coffer.sync-enrollment", "version": 1, "keyFile": <base64 of
/// the key file>, "payload": <base64 of nonce ‖ ciphertext ‖ tag>}`; the payload's associated
/// data binds the format and the key file's key identifier.
public enum EnrollmentFile {
    static let formatName = "coffer.sync-enrollment"
    static let formatVersion = 1
    /// The largest file accepted: real ones are about a kilobyte.
    static let maximumSize = 64 * 1024

    private struct Document: Codable {
        var format: String
        var version: Int
        var keyFile: Data
        var payload: Data
    }

    /// The enrollment file for `credentials`, sealed under `passphrase`.
    ///
    /// - Throws: `SyncError.misuse` for an empty passphrase or parameters the key file refuses.
    public static func seal(
        _ credentials: SyncDeviceCredentials, passphrase: some DataProtocol,
        parameters: KeyFile.KDFParameters = .default
    ) throws(SyncError) -> Data {
        let fileKey = DataKey.random()
        do {
            let keyFile = try KeyFile(wrapping: fileKey, passphrase: passphrase, parameters: parameters)
            let key = fileKey.withUnsafeBytes { SymmetricKey(data: $0) }
            let box = try AES.GCM.seal(
                credentials.encoded(), using: key, authenticating: associatedData(keyFile))
            guard let payload = box.combined else { throw SyncError.misuse("AES-GCM gave no combined form") }
            let document = Document(
                format: formatName, version: formatVersion, keyFile: try keyFile.encoded(), payload: payload)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return try encoder.encode(document)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.misuse(
                "the enrollment could not be sealed: an empty passphrase or bad key derivation parameters")
        }
    }

    /// Opens an enrollment file with `passphrase`.
    ///
    /// - Throws: `SyncError.enrollmentInvalid` for a wrong passphrase, a damaged or truncated
    ///   file, or another format.
    public static func open(_ contents: some DataProtocol, passphrase: some DataProtocol) throws(SyncError)
        -> SyncDeviceCredentials
    {
        guard contents.count <= maximumSize,
            let document = try? JSONDecoder().decode(Document.self, from: Data(contents)),
            document.format == formatName
        else { throw SyncError.enrollmentInvalid(reason: "not an enrollment file") }
        guard document.version == formatVersion else {
            throw SyncError.enrollmentInvalid(reason: "format version \(document.version) is not supported")
        }
        let keyFile: KeyFile
        let fileKey: DataKey
        do {
            keyFile = try KeyFile(contents: document.keyFile)
            fileKey = try keyFile.unwrap(passphrase: passphrase)
        } catch {
            throw SyncError.enrollmentInvalid(
                reason: error.code == .wrongPassphrase ? "wrong passphrase" : "the file is damaged")
        }
        let key = fileKey.withUnsafeBytes { SymmetricKey(data: $0) }
        guard let box = try? AES.GCM.SealedBox(combined: document.payload),
            let plaintext = try? AES.GCM.open(box, using: key, authenticating: associatedData(keyFile)),
            let credentials = SyncDeviceCredentials(decoding: plaintext)
        else { throw SyncError.enrollmentInvalid(reason: "the file is damaged") }
        return credentials
    }

    private static func associatedData(_ keyFile: KeyFile) -> Data {
        Data("coffer-sync enrollment v1 \(keyFile.keyIdentifier)".utf8)
    }
}
