import Foundation

/// The fixed values the Coffer-written fixtures hold.
enum FixtureData {
    /// A body long enough to be compressed (zlib's threshold is 512 bytes) and to overflow a 1024-byte page.
    static let longBody = String(
        repeating:
            "Coffer keeps every released format readable; this sentence repeats to make a long, compressible body. ",
        count: 30)

    /// Notes with metadata, a note without, a Unicode key, and the nil collection.
    static let notes: [FixtureRow] = [
        FixtureRow(
            "notes", "n1", Note(title: "Groceries", body: "Milk, eggs, bread", tags: ["home"]),
            metadata: NoteMeta(revision: 1, pinned: true)),
        FixtureRow(
            "notes", "n2", Note(title: "Ünïcödé ✓", body: "日本語のテキスト", tags: ["i18n", "test"]),
            metadata: NoteMeta(revision: 7, pinned: false)),
        FixtureRow("notes", "n3", Note(title: "No metadata", body: "", tags: [])),
        FixtureRow("notes", "ключ-ü", Note(title: "Unicode key", body: "key is not ASCII", tags: [])),
        FixtureRow("notes", "long", Note(title: "Long", body: longBody, tags: ["overflow"])),
        FixtureRow("", "readme", Note(title: "Nil collection", body: "stored under \"\"", tags: [])),
    ]

    /// Secrets written under keyring key 1.
    static let secretsKey1: [FixtureRow] = [
        FixtureRow("aes-gcm", "s1", Secret(account: "alice@example.com", password: "correct horse")),
        FixtureRow("aes-gcm", "s2", Secret(account: "bob@example.com", password: "battery staple")),
    ]

    /// Secrets written after key 2 became current.
    static let secretsKey2: [FixtureRow] = [
        FixtureRow("aes-gcm", "s3", Secret(account: "carol@example.com", password: "hunter2")),
        FixtureRow("aes-gcm", "s4", Secret(account: "dave@example.com", password: "tr0ub4dor&3")),
    ]

    /// Rows of every codec-only and compressed collection of the chains fixture.
    static let plainChains: [FixtureRow] = [
        FixtureRow("codec-only", "c1", Note(title: "Codec only", body: "JSON, no header", tags: ["plain"])),
        FixtureRow("codec-only", "c2", Note(title: "Second", body: "also plain", tags: [])),
        FixtureRow("zlib", "z-long", Note(title: "Compressed", body: longBody, tags: ["zlib"])),
        FixtureRow("zlib", "z-short", Note(title: "Too short to compress", body: "short", tags: [])),
        FixtureRow(
            "plist", "p1", Settings(theme: "dark", fontSize: 13, sync: true, servers: ["a.example", "b.example"])),
        FixtureRow("timestamps", "t1", Date(timeIntervalSinceReferenceDate: 700_000_000.5)),
        FixtureRow("timestamps", "t2", Date(timeIntervalSince1970: 0)),
        FixtureRow("strings", "greeting", "héllo wörld ✓"),
        FixtureRow("data", "bytes", Data([0x00, 0x01, 0x7F, 0x80, 0xFF])),
        FixtureRow("data", "magic-prefixed", Data([0xC0, 0x46, 0x46, 0x52, 0x01, 0x00, 0x00, 0x2A])),
    ]

    /// Compressed and encrypted notes (with encrypted metadata) under key 1.
    static let bothKey1: [FixtureRow] = [
        FixtureRow(
            "zlib+aes-gcm", "b1", Note(title: "Both stages, key 1", body: longBody, tags: ["zlib", "aes"]),
            metadata: NoteMeta(revision: 1, pinned: false))
    ]

    /// Compressed and encrypted notes under key 2, and one too short to compress.
    static let bothKey2: [FixtureRow] = [
        FixtureRow(
            "zlib+aes-gcm", "b2", Note(title: "Both stages, key 2", body: longBody, tags: ["zlib", "aes"]),
            metadata: NoteMeta(revision: 2, pinned: true)),
        FixtureRow("zlib+aes-gcm", "b3", Note(title: "Encrypted only", body: "short", tags: [])),
    ]

    /// To-do items for the secondary-index fixture.
    static func task(_ key: String, _ title: String, _ priority: Int, _ done: Bool) -> FixtureRow {
        FixtureRow("tasks", key, TaskItem(title: title, priority: priority, done: done))
    }
}
