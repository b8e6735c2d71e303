import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `catch DatabaseError.wrongKey` and the other code patterns, on hand-made and real errors.
@Suite struct DatabaseErrorMatchingTests {
    /// Every code's pattern, with the name it must carry.
    static let patterns: [(name: String, pattern: DatabaseError.Code)] = [
        ("wrongKey", DatabaseError.wrongKey), ("keyRequired", DatabaseError.keyRequired),
        ("wrongPassphrase", DatabaseError.wrongPassphrase), ("damagedKeyFile", DatabaseError.damagedKeyFile),
        ("notEncrypted", DatabaseError.notEncrypted), ("notADatabase", DatabaseError.notADatabase),
        ("invalidKey", DatabaseError.invalidKey), ("emptyFile", DatabaseError.emptyFile),
        ("corrupt", DatabaseError.corrupt), ("io", DatabaseError.io), ("busy", DatabaseError.busy),
        ("readOnly", DatabaseError.readOnly), ("misuse", DatabaseError.misuse),
        ("unsupportedCipherSettings", DatabaseError.unsupportedCipherSettings),
        ("notSQLCipher", DatabaseError.notSQLCipher), ("unsupportedFormat", DatabaseError.unsupportedFormat),
        ("serialization", DatabaseError.serialization), ("typeMismatch", DatabaseError.typeMismatch),
        ("mutationDuringEnumeration", DatabaseError.mutationDuringEnumeration),
        ("extensionFailure", DatabaseError.extensionFailure), ("duplicateItem", DatabaseError.duplicateItem),
        ("itemNotFound", DatabaseError.itemNotFound), ("cancelled", DatabaseError.cancelled),
        ("closed", DatabaseError.closed), ("sqlite", DatabaseError.sqlite),
        ("invalidQuery", DatabaseError.invalidQuery), ("unsupportedFeature", DatabaseError.unsupportedFeature),
    ]

    @Test func everyPatternIsItsCodeAndMatchesOnlyThatCode() {
        #expect(Set(Self.patterns.map(\.name)).count == Self.patterns.count)
        for (name, pattern) in Self.patterns {
            #expect(pattern.rawValue == name)
            for (_, other) in Self.patterns {
                let error: any Error = DatabaseError(other, "test")
                #expect((pattern ~= error) == (pattern == other), "\(name) against \(other)")
                switch error {
                case pattern: #expect(pattern == other)
                default: #expect(pattern != other)
                }
            }
            #expect(!(pattern ~= CocoaError(.fileNoSuchFile)))
            #expect(!(pattern ~= SerializationError(.codecFailed, stage: "json", reason: "test")))
        }
    }

    @Test func everyDescriptionSaysWhatToDoWithTheMostSpecificAdvice() {
        let generic = DatabaseError.Code(rawValue: "someoneElses").recoverySuggestion
        for (name, code) in Self.patterns {
            #expect(code.recoverySuggestion != generic, "\(name) has no advice of its own")
            let error = DatabaseError(code, "what failed")
            #expect(error.description.hasSuffix(". " + code.recoverySuggestion))
            #expect(error.recoverySuggestion == code.recoverySuggestion)
        }
        let stage = SerializationError(.authenticationFailed, stage: "aes-256-gcm", reason: "no match")
        let wrapped = DatabaseError(.serialization, "cannot decode", underlying: stage)
        #expect(wrapped.recoverySuggestion == SerializationError.Code.authenticationFailed.recoverySuggestion)
        #expect(
            wrapped.description
                == "serialization: cannot decode — aes-256-gcm: no match. "
                + SerializationError.Code.authenticationFailed.recoverySuggestion)
        let keyFile = DatabaseError(
            .wrongPassphrase, "key file", underlying: KeyFileError(.wrongPassphrase, reason: "x"))
        #expect(keyFile.recoverySuggestion == KeyFileError.Code.wrongPassphrase.recoverySuggestion)
    }

    @Test func catchClausesMatchByName() {
        func caught(_ error: DatabaseError) -> String {
            do {
                throw error
            } catch DatabaseError.wrongKey, DatabaseError.keyRequired {
                return "key"
            } catch DatabaseError.closed {
                return "closed"
            } catch let error as DatabaseError where error.code == .busy {
                return "busy"
            } catch {
                return "other"
            }
        }
        #expect(caught(DatabaseError(.wrongKey, "test")) == "key")
        #expect(caught(DatabaseError(.keyRequired, "test")) == "key")
        #expect(caught(DatabaseError(.closed, "test")) == "closed")
        #expect(caught(DatabaseError(.busy, "test")) == "busy")
        #expect(caught(DatabaseError(.io, "test")) == "other")
    }

    @Test func switchingOverTheCodeIsUnchanged() {
        func kind(_ error: DatabaseError) -> Int {
            switch error.code {
            case .wrongKey, .wrongPassphrase: 1
            case .invalidQuery: 2
            default: 0
            }
        }
        #expect(kind(DatabaseError(.wrongPassphrase, "test")) == 1)
        #expect(kind(DatabaseError(.invalidQuery, "test")) == 2)
        #expect(DatabaseError(.corrupt, "test").code == .corrupt)
        #expect(DatabaseError.corrupt == DatabaseError.Code.corrupt)
    }

    @Test func aPatternDoesNotLookInsideTheUnderlyingError() {
        let wrapped = DatabaseError(.extensionFailure, "test", underlying: DatabaseError(.wrongKey, "inner"))
        #expect(!(DatabaseError.wrongKey ~= wrapped))
        #expect(DatabaseError.extensionFailure ~= wrapped)
    }

    @Test func aWrongKeyOnOpenIsCaughtByName() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("db.sqlite")
        _ = try Database(url: url, options: TestSupport.rawKeyOptions())
        try TestSupport.waitUntilClosed(url)

        var outcome = "opened"
        do {
            _ = try Database(url: url, options: TestSupport.rawKeyOptions())
        } catch DatabaseError.wrongKey {
            outcome = "wrongKey"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "wrongKey")

        outcome = "opened"
        do {
            _ = try Database(url: url, options: DatabaseOptions())
        } catch DatabaseError.wrongKey, DatabaseError.keyRequired {
            outcome = "key"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "key")
    }

    @Test func aRealMisuseIsCaughtByName() throws {
        let test = try TestDatabase()
        let connection = try test.connection()
        var outcome = "ran"
        do {
            try connection.readWrite { _ in try connection.readWrite { _ in } }
        } catch DatabaseError.misuse {
            outcome = "misuse"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "misuse")
    }
}
