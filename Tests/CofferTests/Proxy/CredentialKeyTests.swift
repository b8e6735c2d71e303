import PropertyBased
import Testing

@testable import Coffer

/// The row-key encoding of credential identifiers: injective, exact per service, never legacy.
@Suite struct CredentialKeyTests {
    /// Pieces rich in what broke or could break the encoding: both separators, the escape mark and
    /// escaped-looking text, control characters, empty text, combining marks (which join a
    /// preceding "/" into one `Character`), canonically equivalent spellings, multi-byte scalars.
    static let pieces = [
        "", "a", "b", "svc", "/", "%", "%2F", "%1F", "%25", "\u{1F}", "\u{0}", "\u{7F}", "\u{85}", "\n", " ",
        "é", "e\u{301}", "\u{301}", "\u{200D}", "日本", "🔑", "👩‍💻", "🇩🇪",
    ]
    static let text = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...4).map { $0.map { pieces[$0] }.joined() }
    static let id = zip(text, text, text.optional(valueRate: 0.6)).map { service, account, group in
        CredentialID(service: service, account: account, accessGroup: group)
    }

    /// 4,000 identifiers from a fixed seed: the same ones on every run.
    static func identifiers() -> [CredentialID] {
        var rng = Xoshiro(
            seed: (0x5EED_C0FF_EE00_0001, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, 0x0F1E_2D3C_4B5A_6978))
        return (0..<4_000).map { _ in id.run(using: &rng) }
    }

    @Test func theKnownCollisionsHaveDistinctKeys() {
        let pairs = [
            (
                CredentialID(service: "svc\u{1F}x", account: "acct"),
                CredentialID(service: "svc", account: "x\u{1F}acct")
            ),
            (
                CredentialID(service: "svc", account: "acct"),
                CredentialID(service: "svc", account: "acct", accessGroup: "")
            ),
            (CredentialID(service: "a/b", account: "c"), CredentialID(service: "a", account: "b/c")),
            (CredentialID(service: "a", account: "b/c"), CredentialID(service: "a", account: "b", accessGroup: "c")),
            (CredentialID(service: "a%2Fb", account: "c"), CredentialID(service: "a/b", account: "c")),
        ]
        for (first, second) in pairs {
            #expect(CredentialKey.key(for: first) != CredentialKey.key(for: second), "\(first) / \(second)")
        }
        #expect(CredentialKey.key(for: CredentialID(service: "svc", account: "acct")) == "svc/acct")
        #expect(CredentialKey.key(for: CredentialID(service: "svc", account: "acct", accessGroup: "")) == "svc/acct/")
        #expect(CredentialKey.key(for: CredentialID(service: "a/b%", account: "\u{1F}é")) == "a%2Fb%25/%1Fé")
        #expect(CredentialKey.key(for: CredentialID(service: "x", account: "\u{85}")) == "x/%C2%85")
    }

    @Test func distinctIdentifiersNeverShareARowKey() {
        var owners: [[UInt8]: CredentialID] = [:]
        var failures: [String] = []
        for id in Self.identifiers() {
            let key = CredentialKey.key(for: id)
            if let decoded = CredentialKey.id(from: key), !CredentialKey.same(decoded, id) {
                failures.append("\(key) decodes to \(decoded), not \(id)")
            } else if CredentialKey.id(from: key) == nil {
                failures.append("\(key) does not decode")
            }
            if CredentialKey.isLegacy(key) { failures.append("\(key) looks like an old-format key") }
            if !CredentialKey.isLegacy(CredentialKey.legacyKey(for: id)) {
                failures.append("the old key of \(id) is not recognised as one")
            }
            // Keyed by bytes: a String dictionary would merge canonically equivalent keys.
            if let owner = owners[Array(key.utf8)], !CredentialKey.same(owner, id) {
                failures.append("\(owner) and \(id) share \(key)")
            }
            owners[Array(key.utf8)] = id
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
        #expect(owners.count > 2_000, "the generator repeats itself too much to test anything")
    }

    @Test func aServicePrefixMatchesExactlyTheKeysOfThatService() {
        let ids = Self.identifiers()
        // The first 200 distinct services in generation order (a Set's order changes between runs).
        var seen: Set<[UInt8]> = []
        let services = ids.map(\.service).filter { seen.insert(Array($0.utf8)).inserted }.prefix(200)
        let keys = ids.map { CredentialKey.key(for: $0) }
        var failures: [String] = []
        var matches = 0
        // Another service that starts with this one's text: what an inexact prefix would take in.
        var nearMisses = 0
        for service in services {
            let prefix = CredentialKey.servicePrefix(service)
            for (id, key) in zip(ids, keys) {
                let matched = CredentialKey.hasPrefix(key, prefix)
                if matched != CredentialKey.same(id.service, service) {
                    failures.append("prefix of \(service.debugDescription) \(matched ? "matches" : "misses") \(id)")
                }
                if matched {
                    matches += 1
                } else if id.service.utf8.starts(with: service.utf8) {
                    nearMisses += 1
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
        #expect(matches >= 1_000 && nearMisses >= 5_000, "matches \(matches), near misses \(nearMisses)")
    }

    @Test func onlyCanonicalSpellingsDecode() {
        for key in ["svc", "a/b/c/d", "a%2fb/c", "%41/b", "a%/b", "a%2/b", "a%C3/b", "a\u{1F}b/c"] {
            #expect(CredentialKey.id(from: key) == nil, "\(key.debugDescription)")
        }
        #expect(CredentialKey.id(from: "a%2Fb/c/") == CredentialID(service: "a/b", account: "c", accessGroup: ""))
    }
}
