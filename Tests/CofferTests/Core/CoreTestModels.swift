import Coffer
import CofferTestSupport
import Foundation

/// A reference type for the `copy` object policy: counts its copies so tests can see them happen.
final class SharedCounter: CopyableObject, Codable {
    let value: Int
    let copies: Locked<Int>

    init(_ value: Int, copies: Locked<Int> = Locked(0)) {
        self.value = value
        self.copies = copies
    }

    func copy() -> SharedCounter {
        copies.withLock { $0 += 1 }
        return SharedCounter(value, copies: copies)
    }

    enum CodingKeys: String, CodingKey { case value }

    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
        copies = Locked(0)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }
}

/// A metadata type distinct from the objects, to catch object/metadata mix-ups.
struct Tag: Codable, Sendable, Hashable {
    var label: String
    var rank: Int
}

/// A JSON codec for `T` that counts how often it encodes and decodes, to prove what ran.
struct CountingCodec<T: Codable & Sendable>: Sendable {
    let encodes = Locked(0)
    let decodes = Locked(0)

    var chain: SerializerChain {
        let base = Serializer.codable(T.self)
        let encodes = encodes
        let decodes = decodes
        return SerializerChain(
            codec: Serializer(
                name: "counting",
                encode: { object in
                    encodes.withLock { $0 += 1 }
                    return try base.encode(object)
                },
                decode: { data in
                    decodes.withLock { $0 += 1 }
                    return try base.decode(data)
                }))
    }
}
