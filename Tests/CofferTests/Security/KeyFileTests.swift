import Foundation
import Testing

@testable import Coffer

/// KDF parameters for tests: scrypt N = 2^10 (1 MiB, a few milliseconds) instead of the default
/// N = 2^15, and PBKDF2 with 1,000 iterations — the smallest the key file accepts. They keep the
/// suite fast; they are far too weak for real passphrases.
extension KeyFile.KDFParameters {
    static let fastScrypt = KeyFile.KDFParameters.scrypt(n: 1 << 10, r: 8, p: 1)
    static let fastPBKDF2 = KeyFile.KDFParameters.pbkdf2SHA256(iterations: 1_000)
}

/// Passphrases are bytes; these are fixed so that tests can search files and messages for them.
enum TestPassphrase {
    static let user = Array("correct horse battery staple".utf8)
    static let recovery = Array("RECOVERY-7Q2M-XK4P-99ZT".utf8)
    static let other = Array("Tr0ub4dor&3".utf8)
}

/// Expects `body` to throw a ``KeyFileError`` with `code`, and returns it.
@discardableResult
func expectKeyFileError<R>(
    _ code: KeyFileError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) -> KeyFileError? {
    do {
        _ = try body()
        Issue.record("expected KeyFileError.\(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as KeyFileError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected KeyFileError.\(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

@Suite("KeyFile")
struct KeyFileTests {
    @Test(arguments: [KeyFile.KDFParameters.fastScrypt, .fastPBKDF2])
    func wrapsAndUnwrapsTheSameDataKey(parameters: KeyFile.KDFParameters) throws {
        let dataKey = DataKey.random()
        let keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: parameters)
        #expect(keyFile.slotLabels == [KeyFile.defaultLabel])
        #expect(keyFile.slots.first?.parameters == parameters)
        #expect(try keyFile.unwrap(passphrase: TestPassphrase.user) == dataKey)
        #expect(try keyFile.unwrap(passphrase: Data(TestPassphrase.user)) == dataKey)

        let parsed = try KeyFile(contents: keyFile.encoded())
        #expect(parsed == keyFile)
        #expect(try parsed.unwrap(passphrase: TestPassphrase.user) == dataKey)
    }

    @Test func defaultParametersAreScryptN15() throws {
        #expect(KeyFile.KDFParameters.default == .scrypt(n: 32_768, r: 8, p: 1))
        let dataKey = DataKey.random()
        let keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user)
        #expect(try keyFile.unwrap(passphrase: TestPassphrase.user) == dataKey)
    }

    @Test func aWrongPassphraseIsWrongPassphrase() throws {
        let keyFile = try KeyFile(wrapping: .random(), passphrase: TestPassphrase.user, parameters: .fastScrypt)
        expectKeyFileError(.wrongPassphrase) { try keyFile.unwrap(passphrase: TestPassphrase.other) }
        expectKeyFileError(.wrongPassphrase) { try keyFile.unwrap(passphrase: TestPassphrase.user.dropLast()) }
        expectKeyFileError(.invalidArgument) { try keyFile.unwrap(passphrase: [UInt8]()) }
    }

    @Test func theEncodingIsInspectableJSON() throws {
        let keyFile = try KeyFile(wrapping: .random(), passphrase: TestPassphrase.user, parameters: .fastScrypt)
        let text = String(decoding: try keyFile.encoded(), as: UTF8.self)
        #expect(text.contains(#""format" : "coffer.keyfile""#))
        #expect(text.contains(#""version" : 1"#))
        #expect(text.contains(#""algorithm" : "scrypt""#))
        #expect(text.contains(#""n" : 1024"#))
        #expect(text.contains(keyFile.keyIdentifier))
        #expect(keyFile.keyIdentifier.count == 32)
        #expect(keyFile.description.contains("slots: primary"))
    }

    @Test func changingThePassphraseKeepsTheDataKey() throws {
        let dataKey = DataKey.random()
        let original = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastScrypt)
            .addingSlot(
                label: "recovery", passphrase: TestPassphrase.recovery, parameters: .fastScrypt, dataKey: dataKey)

        let changed = try original.changingPassphrase(from: TestPassphrase.user, to: TestPassphrase.other)
        expectKeyFileError(.wrongPassphrase) { try changed.unwrap(passphrase: TestPassphrase.user) }
        #expect(try changed.unwrap(passphrase: TestPassphrase.other) == dataKey)
        #expect(try changed.unwrap(passphrase: TestPassphrase.recovery) == dataKey)
        #expect(changed.keyIdentifier == original.keyIdentifier)
        #expect(changed.slotLabels == ["primary", "recovery"])
        #expect(changed.slots[1] == original.slots[1], "other slots are untouched")
        #expect(changed.slots[0].salt != original.slots[0].salt, "a rewrap uses a fresh salt")

        // The slot opened by the recovery passphrase is the one rewrapped, and may change its KDF.
        let viaRecovery = try changed.changingPassphrase(
            from: TestPassphrase.recovery, to: Array("new recovery".utf8), parameters: .fastPBKDF2)
        #expect(viaRecovery.slots[1].parameters == .fastPBKDF2)
        #expect(try viaRecovery.unwrap(passphrase: Array("new recovery".utf8)) == dataKey)
        #expect(try viaRecovery.unwrap(passphrase: TestPassphrase.other) == dataKey)

        expectKeyFileError(.wrongPassphrase) {
            try original.changingPassphrase(from: Array("nope".utf8), to: TestPassphrase.other)
        }
        expectKeyFileError(.invalidArgument) {
            try original.changingPassphrase(from: TestPassphrase.user, to: [UInt8]())
        }
    }

    @Test func aRecoverySlotUnlocksTheSameKeyUntilRemoved() throws {
        let dataKey = DataKey.random()
        let single = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastScrypt)
        let withRecovery = try single.addingSlot(
            label: "recovery", passphrase: TestPassphrase.recovery, parameters: .fastPBKDF2,
            unlockingWith: TestPassphrase.user)
        #expect(withRecovery.slotLabels == ["primary", "recovery"])
        #expect(try withRecovery.unwrap(passphrase: TestPassphrase.recovery) == dataKey)
        #expect(try withRecovery.unwrap(passphrase: TestPassphrase.user) == dataKey)

        let recoveryOnly = try withRecovery.removingSlot(label: "primary")
        #expect(recoveryOnly.slotLabels == ["recovery"])
        expectKeyFileError(.wrongPassphrase) { try recoveryOnly.unwrap(passphrase: TestPassphrase.user) }
        #expect(try recoveryOnly.unwrap(passphrase: TestPassphrase.recovery) == dataKey)

        expectKeyFileError(.lastSlot) { try recoveryOnly.removingSlot(label: "recovery") }
        expectKeyFileError(.slotNotFound) { try withRecovery.removingSlot(label: "backup") }
    }

    @Test func addingASlotChecksItsArguments() throws {
        let dataKey = DataKey.random()
        let keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastPBKDF2)

        expectKeyFileError(.slotExists) {
            try keyFile.addingSlot(label: "primary", passphrase: TestPassphrase.other, dataKey: dataKey)
        }
        expectKeyFileError(.wrongPassphrase) {
            try keyFile.addingSlot(
                label: "recovery", passphrase: TestPassphrase.recovery, parameters: .fastPBKDF2,
                unlockingWith: TestPassphrase.other)
        }
        expectKeyFileError(.keyMismatch) {
            try keyFile.addingSlot(label: "recovery", passphrase: TestPassphrase.recovery, dataKey: .random())
        }
        for label in ["", String(repeating: "x", count: KeyFile.maximumLabelLength + 1)] {
            expectKeyFileError(.invalidArgument) {
                try keyFile.addingSlot(label: label, passphrase: TestPassphrase.recovery, dataKey: dataKey)
            }
        }
        expectKeyFileError(.invalidArgument) {
            try keyFile.addingSlot(label: "empty", passphrase: Data(), parameters: .fastPBKDF2, dataKey: dataKey)
        }
    }

    @Test func aKeyFileHoldsAtMostSixteenSlots() throws {
        let dataKey = DataKey.random()
        var keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastPBKDF2)
        for i in 1..<KeyFile.maximumSlotCount {
            keyFile = try keyFile.addingSlot(
                label: "slot \(i)", passphrase: Array("pass \(i)".utf8), parameters: .fastPBKDF2, dataKey: dataKey)
        }
        #expect(keyFile.slots.count == 16)
        #expect(try keyFile.unwrap(passphrase: Array("pass 15".utf8)) == dataKey)
        #expect(try KeyFile(contents: keyFile.encoded()) == keyFile)
        expectKeyFileError(.invalidArgument) {
            try keyFile.addingSlot(label: "one too many", passphrase: TestPassphrase.other, dataKey: dataKey)
        }
    }

    @Test(arguments: [
        KeyFile.KDFParameters.scrypt(n: 1 << 9, r: 8, p: 1),  // below the minimum cost
        .scrypt(n: 1_000, r: 8, p: 1),  // not a power of two
        .scrypt(n: 1 << 20, r: 16, p: 1),  // 2 GiB
        .scrypt(n: 1 << 10, r: 0, p: 1),
        .scrypt(n: 1 << 10, r: 8, p: 0),
        .pbkdf2SHA256(iterations: 999),
        .pbkdf2SHA256(iterations: 100_000_001),
    ])
    func parametersOutOfRangeAreRejected(parameters: KeyFile.KDFParameters) {
        expectKeyFileError(.invalidArgument) {
            try KeyFile(wrapping: .random(), passphrase: TestPassphrase.user, parameters: parameters)
        }
    }

    @Test func slotsAreBoundToTheirFileAndLabel() throws {
        let dataKey = DataKey.random()
        let keyFile = try KeyFile(wrapping: dataKey, passphrase: TestPassphrase.user, parameters: .fastScrypt)
            .addingSlot(
                label: "recovery", passphrase: TestPassphrase.recovery, parameters: .fastScrypt, dataKey: dataKey)

        // Swap the labels (checksum recomputed, as a deliberate editor would): neither slot opens.
        let first = keyFile.slots[0]
        let second = keyFile.slots[1]
        let swapped = KeyFile(
            keyID: keyFile.keyID, slots: [second.relabelled(first.label), first.relabelled(second.label)])
        let reparsed = try KeyFile(contents: swapped.encoded())
        expectKeyFileError(.wrongPassphrase) { try reparsed.unwrap(passphrase: TestPassphrase.user) }
        expectKeyFileError(.wrongPassphrase) { try reparsed.unwrap(passphrase: TestPassphrase.recovery) }

        // A slot moved into another key file (another key identifier) does not open there.
        let stranger = try KeyFile(wrapping: .random(), passphrase: TestPassphrase.other, parameters: .fastScrypt)
        let transplanted = KeyFile(keyID: stranger.keyID, slots: stranger.slots + [keyFile.slots[1]])
        expectKeyFileError(.wrongPassphrase) { try transplanted.unwrap(passphrase: TestPassphrase.recovery) }
    }

    /// A file written by the first version of this code, never regenerated: if it stops opening,
    /// the format changed.
    @Test func readsTheVersionOneFixture() throws {
        let keyFile = try KeyFile(contents: Data(KeyFileFixture.version1.utf8))
        #expect(keyFile.slotLabels == ["primary", "recovery"])
        #expect(keyFile.keyIdentifier == KeyFileFixture.keyIdentifier)
        let expected = try DataKey(bytes: KeyFileFixture.dataKey)
        #expect(try keyFile.unwrap(passphrase: TestPassphrase.user) == expected)
        #expect(try keyFile.unwrap(passphrase: TestPassphrase.recovery) == expected)
        expectKeyFileError(.wrongPassphrase) { try keyFile.unwrap(passphrase: TestPassphrase.other) }
    }
}

extension KeyFile.Slot {
    /// The same slot under another label, for tampering tests.
    func relabelled(_ newLabel: String) -> KeyFile.Slot {
        KeyFile.Slot(
            label: newLabel, parameters: parameters, salt: salt, check: check, nonce: nonce,
            ciphertext: ciphertext, tag: tag)
    }
}

/// A version 1 key file wrapping the data key 0x00 0x01 … 0x1f under ``TestPassphrase/user``
/// (scrypt N = 2^10) and ``TestPassphrase/recovery`` (PBKDF2-SHA256, 1,000 iterations).
enum KeyFileFixture {
    static let dataKey: [UInt8] = Array(0..<32)
    static let keyIdentifier = "67965f4cd55c127fc018646311717c85"
    static let version1 = #"""
        {
          "checksum" : "1a4bc39818da63abc99cc111cd1a4c62efeed15c63e5a9053713bf3ad7d86e16",
          "format" : "coffer.keyfile",
          "keyID" : "67965f4cd55c127fc018646311717c85",
          "slots" : [
            {
              "check" : "7KQKw3gTf3cCR+0a79CnuUYYD2XNoeg5IeZQc0UcVV4=",
              "ciphertext" : "7DYgGgDBjgSZ2eCrE3zs0FBZLV9Bhp6MLcsz2CRIjgQ=",
              "kdf" : {
                "algorithm" : "scrypt",
                "n" : 1024,
                "p" : 1,
                "r" : 8
              },
              "label" : "primary",
              "nonce" : "nPdcHiTUi8QURW8V",
              "salt" : "MwFXlt4/6rKyNsFVRe2nBZjkwEQsRS4cd0PNJModowE=",
              "tag" : "YhL39FWvbwCxYdPU+mox+Q=="
            },
            {
              "check" : "Fq1gVXVM676gITSGnRgiGzUOxjwdZmGbbjAVn/eMvWA=",
              "ciphertext" : "lTrkIf11s/wxMBvvC3/f/TXKkMkf1+DP8JeMl9xQsu8=",
              "kdf" : {
                "algorithm" : "pbkdf2-sha256",
                "iterations" : 1000
              },
              "label" : "recovery",
              "nonce" : "7XXI5ALaxrB1eDXk",
              "salt" : "gAi0yF9wQCXyZHC8NIbM5mLug6Yu+MdHeMreNr0fpI0=",
              "tag" : "ex7YhQ+BiEwWddduFNshbA=="
            }
          ],
          "version" : 1
        }
        """#
}
