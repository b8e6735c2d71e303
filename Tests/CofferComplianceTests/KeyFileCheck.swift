import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Runs one check of a key-file fixture on a copy: unwrap with a passphrase, compare the data
/// key and identifier, or the exact `KeyFileError` code.
struct KeyFileCheck {
    let entry: FixtureEntry
    let check: FixtureCheck

    /// Runs the check.
    /// - Throws: when copying fails or the check names no passphrase.
    func run() throws {
        let directory = TemporaryDirectory("coffer-compliance")
        let url = try FixtureFiles.copy(entry.path, into: directory.url)
        let passphrase = try #require(check.unwrapPassphrase, "a key-file check needs unwrapPassphrase")
        switch Self.unwrap(url, passphrase: Data(passphrase.utf8)) {
        case .success(let (keyFile, dataKeyHex)):
            #expect(check.expect.keyFileError == nil, "the key file unwrapped")
            #expect(dataKeyHex == check.expect.dataKeyHex, "data key")
            #expect(keyFile.keyIdentifier == check.expect.keyIdentifier, "key identifier")
        case .failure(let error):
            #expect("\(error.code)" == check.expect.keyFileError, "unwrapping failed with \(error)")
        }
        #expect(try FixtureFiles.sha256(url) == entry.sha256, "reading the key file changed it")
    }

    private static func unwrap(_ url: URL, passphrase: Data) -> Result<(KeyFile, String), KeyFileError> {
        Result { () throws(KeyFileError) -> (KeyFile, String) in
            let keyFile = try KeyFile.read(from: url)
            let key = try keyFile.unwrap(passphrase: passphrase)
            return (keyFile, key.withUnsafeBytes { Hex.string($0) })
        }
    }
}
