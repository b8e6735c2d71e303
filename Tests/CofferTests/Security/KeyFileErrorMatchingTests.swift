import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// `catch KeyFileError.wrongPassphrase` and the other code patterns, bare and wrapped.
@Suite struct KeyFileErrorMatchingTests {
    static let patterns: [(pattern: KeyFileError.Code, code: KeyFileError.Code)] = [
        (KeyFileError.wrongPassphrase, .wrongPassphrase), (KeyFileError.damaged, .damaged),
        (KeyFileError.unsupportedVersion, .unsupportedVersion), (KeyFileError.slotNotFound, .slotNotFound),
        (KeyFileError.slotExists, .slotExists), (KeyFileError.lastSlot, .lastSlot),
        (KeyFileError.keyMismatch, .keyMismatch), (KeyFileError.invalidArgument, .invalidArgument),
        (KeyFileError.fileExists, .fileExists), (KeyFileError.io, .io), (KeyFileError.cryptoFailure, .cryptoFailure),
    ]

    @Test func everyPatternMatchesItsCodeBareAndWrapped() {
        #expect(Set(Self.patterns.map(\.code)).count == Self.patterns.count)
        let url = URL(fileURLWithPath: "/tmp/db.key")
        for (pattern, code) in Self.patterns {
            #expect(pattern == code)
            for (_, other) in Self.patterns {
                let bare = KeyFileError(other, reason: "test")
                let wrapped = DatabaseError(keyFileError: bare, url: url)
                for error: any Error in [bare, wrapped] {
                    #expect((pattern ~= error) == (code == other), "\(code) against \(other)")
                }
            }
            #expect(!(pattern ~= DatabaseError(.io, "no underlying error")))
            #expect(!(pattern ~= SerializationError(.codecFailed, stage: "json", reason: "test")))
        }
    }

    @Test func aWrongPassphraseIsCaughtByNameDirectlyAndOnOpen() throws {
        let dir = TemporaryDirectory()
        let keyURL = dir.file("db.key")
        let passphrase = Data("right horse battery".utf8)
        _ = try KeyFile.create(at: keyURL, passphrase: passphrase, parameters: .scrypt(n: 1 << 10, r: 8, p: 1))
        let wrong = Data("wrong horse battery".utf8)

        var outcome = "unwrapped"
        do {
            _ = try KeyFile.read(from: keyURL).unwrap(passphrase: wrong)
        } catch KeyFileError.wrongPassphrase {
            outcome = "wrongPassphrase"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "wrongPassphrase")

        var options = DatabaseOptions()
        options.key = .keyFile(keyURL, passphrase: wrong)
        outcome = "opened"
        do {
            _ = try Database(url: dir.file("db.sqlite"), options: options)
        } catch KeyFileError.wrongPassphrase {
            outcome = "wrongPassphrase"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "wrongPassphrase")

        outcome = "opened"
        do {
            _ = try Database(url: dir.file("db.sqlite"), options: options)
        } catch DatabaseError.wrongPassphrase {
            outcome = "wrongPassphrase"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "wrongPassphrase")
    }

    @Test func aDamagedKeyFileIsCaughtByName() throws {
        let dir = TemporaryDirectory()
        let keyURL = dir.file("bad.key")
        try Data("{\"garbage\":1}".utf8).write(to: keyURL)
        var options = DatabaseOptions()
        options.key = .keyFile(keyURL, passphrase: Data("p".utf8))
        var outcome = "opened"
        do {
            _ = try Database(url: dir.file("db.sqlite"), options: options)
        } catch KeyFileError.damaged {
            outcome = "damaged"
        } catch {
            outcome = "other: \(error)"
        }
        #expect(outcome == "damaged")
    }
}
