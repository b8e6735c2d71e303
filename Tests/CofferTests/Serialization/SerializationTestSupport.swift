import Crypto
import Foundation
import PropertyBased
import Testing

@testable import Coffer

/// A record shaped like the benchmark's: a few scalar fields and some text.
struct ChainNote: Codable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String
    var tags: [String]
    var score: Double?
}

/// The code of the ``SerializationError`` a body threw, or `nil` when it returned normally.
///
/// Any other error type is recorded as a test failure: the layer promises only its own.
func errorCode<T>(_ body: () throws -> T) -> SerializationError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as SerializationError {
        return error.code
    } catch {
        Issue.record("expected a SerializationError, got \(type(of: error))")
        return nil
    }
}

/// The ``SerializationError`` a body threw, or `nil` when it returned normally.
func serializationError<T>(_ body: () throws -> T) -> SerializationError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? SerializationError
    }
}

/// A fresh keyring holding one random key, current under `id`.
func makeKeyring(id: Keyring.KeyID = 1) throws -> Keyring {
    try Keyring(key: SymmetricKey(size: .bits256), id: id)
}

/// The chain shapes every round-trip property runs over: codec × zlib on/off × cipher.
enum ChainShape: String, CaseIterable, Sendable, CustomStringConvertible {
    case plain, zlib, aes, zlibAES, chacha, zlibChaCha

    var description: String { rawValue }

    /// The stage list of this shape; zlib's threshold is 0 so short values compress too.
    func stages(keyring: Keyring) -> [any SerializationStage] {
        switch self {
        case .plain: []
        case .zlib: [.zlib(threshold: 0)]
        case .aes: [.aesGCM(keyring)]
        case .zlibAES: [.zlib(threshold: 0), .aesGCM(keyring)]
        case .chacha: [.chaChaPoly(keyring)]
        case .zlibChaCha: [.zlib(threshold: 0), .chaChaPoly(keyring)]
        }
    }

    var encrypts: Bool { self != .plain && self != .zlib }
}

/// The codecs every round-trip property runs over.
enum CodecKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case json, plist, binary

    var description: String { rawValue }

    var serializer: Serializer {
        switch self {
        case .json: .codable(ChainNote.self)
        case .plist: .propertyList(ChainNote.self)
        case .binary: .binary(ChainNote.self)
        }
    }
}

enum Generators {
    /// Text without surrogates, including non-ASCII and control characters.
    static let text = Gen.character(in: "\u{0}"..."\u{D7FF}").string(of: 0...40)

    /// Random notes; bodies are sometimes long and repetitive so that zlib has work to do.
    static let note = zip(
        Gen.int(in: -1_000_000...1_000_000),
        text,
        zip(text, Gen.int(in: 0...30)).map { text, repeats in String(repeating: text, count: repeats) },
        Gen.letterOrNumber.string(of: 0...8).array(of: 0...4)
    ).map { id, title, body, tags in
        ChainNote(id: id, title: title, body: body, tags: tags, score: id.isMultiple(of: 3) ? nil : Double(id) / 7)
    }

    /// Random byte strings.
    static let bytes = Gen.uint8().array(of: 0...300).map { Data($0) }
}
