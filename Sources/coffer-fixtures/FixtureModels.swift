/// A note: the JSON (Codable) value most fixtures store.
struct Note: Codable, Sendable, Hashable {
    var title: String
    var body: String
    var tags: [String]
}

/// Metadata kept beside notes.
struct NoteMeta: Codable, Sendable, Hashable {
    var revision: Int
    var pinned: Bool
}

/// A to-do item: the value the secondary-index fixture indexes.
struct TaskItem: Codable, Sendable, Hashable {
    var title: String
    var priority: Int
    var done: Bool
}

/// Application settings: stored as a binary property list.
struct Settings: Codable, Sendable, Hashable {
    var theme: String
    var fontSize: Int
    var sync: Bool
    var servers: [String]
}

/// A credential: the value the value-encryption fixtures store.
struct Secret: Codable, Sendable, Hashable {
    var account: String
    var password: String
}
