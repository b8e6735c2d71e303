import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `catch SerializationError.authenticationFailed` and the other code patterns, bare and wrapped.
@Suite struct SerializationErrorMatchingTests {
    struct Secret: Codable, Sendable {
        var value: String
    }

    static let patterns: [(pattern: SerializationError.Code, code: SerializationError.Code)] = [
        (SerializationError.typeMismatch, .typeMismatch), (SerializationError.codecFailed, .codecFailed),
        (SerializationError.badMagic, .badMagic), (SerializationError.unsupportedVersion, .unsupportedVersion),
        (SerializationError.truncated, .truncated), (SerializationError.malformedHeader, .malformedHeader),
        (SerializationError.unknownStage, .unknownStage), (SerializationError.unknownKeyID, .unknownKeyID),
        (SerializationError.noCurrentKey, .noCurrentKey),
        (SerializationError.authenticationFailed, .authenticationFailed),
        (SerializationError.encryptionFailed, .encryptionFailed), (SerializationError.stageFailed, .stageFailed),
        (SerializationError.compressionFailed, .compressionFailed),
        (SerializationError.inflateFailed, .inflateFailed),
        (SerializationError.decompressionLimitExceeded, .decompressionLimitExceeded),
        (SerializationError.invalidKey, .invalidKey), (SerializationError.duplicateKeyID, .duplicateKeyID),
        (SerializationError.keyInUse, .keyInUse), (SerializationError.unencryptedBlob, .unencryptedBlob),
        (SerializationError.invalidConfiguration, .invalidConfiguration),
    ]

    @Test func everyPatternMatchesItsCodeBareAndWrapped() {
        #expect(Set(Self.patterns.map(\.code)).count == Self.patterns.count)
        for (pattern, code) in Self.patterns {
            #expect(pattern == code)
            for (_, other) in Self.patterns {
                let bare = SerializationError(other, stage: "test", reason: "test")
                let wrapped = DatabaseError(.serialization, "test", collection: "c", key: "k", underlying: bare)
                let twice = DatabaseError(.extensionFailure, "test", underlying: wrapped)
                for error: any Error in [bare, wrapped, twice] {
                    #expect((pattern ~= error) == (code == other), "\(code) against \(other)")
                }
            }
            #expect(!(pattern ~= DatabaseError(.serialization, "no underlying error")))
            #expect(!(pattern ~= KeyFileError(.damaged, reason: "test")))
        }
    }

    @Test func aKeyringErrorIsCaughtByNameUnderTypedThrows() throws {
        let keyring = try Keyring(key: [UInt8](repeating: 7, count: 32), id: 1)
        var outcome = "added"
        do {
            try keyring.addKey([UInt8](repeating: 8, count: 32), id: 1)
        } catch SerializationError.duplicateKeyID {
            outcome = "duplicate"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "duplicate")
    }

    @Test func aTamperedRowIsCaughtAsAuthenticationFailedAndAsSerialization() throws {
        let test = try TestDatabase()
        let keyring = try Keyring(key: [UInt8](repeating: 1, count: 32), id: 1)
        test.database.registerCodable(Secret.self, forCollection: "secrets", stages: [.aesGCM(keyring)])
        let connection = try test.connection(config: ConnectionConfig(objectCacheEnabled: false))
        try connection.readWrite { tx throws in
            try tx.setObject(Secret(value: "v"), forKey: "a", inCollection: "secrets")
            var tampered = try #require(try tx.serializedObject(forKey: "a", inCollection: "secrets"))
            tampered[tampered.count - 1] ^= 0x01
            try tx.setObject(
                "x", forKey: "a", inCollection: "secrets", withMetadata: nil, serializedObject: tampered,
                serializedMetadata: nil)
        }
        func read() throws {
            _ = try connection.read { try $0.object(forKey: "a", inCollection: "secrets", as: Secret.self) }
        }

        var outcome = "read"
        do {
            try read()
        } catch SerializationError.authenticationFailed {
            outcome = "authenticationFailed"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "authenticationFailed")

        outcome = "read"
        do {
            try read()
        } catch SerializationError.unknownKeyID, SerializationError.unencryptedBlob {
            outcome = "wrong code"
        } catch DatabaseError.serialization {
            outcome = "serialization"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "serialization")
    }
}
