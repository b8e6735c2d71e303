import Coffer
import Foundation

/// The seed corpus: real encodings of the fuzzed types, and a few damaged ones.
enum BinaryCodecSeeds {
    static func make() throws -> [(name: String, bytes: Data)] {
        let encoder = BinaryEncoder()
        let leaf = FuzzRecord(
            id: "user-000123", age: 21, score: 123.25, tags: ["tag3", "group23", "tier3"], numbers: [1, -2, 300],
            when: Date(timeIntervalSinceReferenceDate: 1e6), blob: Data([0, 1, 2]), link: URL(string: "https://x.y/z"),
            uuid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), amount: Decimal(12.5),
            flags: [true, false], children: nil, choice: .pair(left: 7, right: nil), map: ["a": -1])
        var parent = leaf
        parent.children = [leaf, leaf]
        parent.choice = .nested([.plain, .number(-9), .nested([])])
        let record = try encoder.encode(leaf)
        var seeds: [(name: String, bytes: Data)] = [
            ("record", record),
            ("nested", try encoder.encode(parent)),
            ("choices", try encoder.encode([FuzzChoice.plain, .number(.min), .pair(left: .max, right: "r")])),
            ("dictionary", try encoder.encode(["x": [1.5, -0.0, .infinity], "y": []])),
            ("truncated", record.prefix(record.count / 2)),
            ("json", Data(#"{"id":"a"}"#.utf8)),
        ]
        var damaged = record
        damaged[damaged.count / 3] ^= 0xFF
        seeds.append(("flipped", damaged))
        return seeds
    }
}
