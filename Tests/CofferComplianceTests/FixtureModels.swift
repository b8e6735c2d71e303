// The value types the fixtures store, declared here independently of the generator: the suite
// must decode old files with its own definitions, as an application upgrading Coffer would.
// `json:CredentialItem` is Coffer's own `CredentialItem`, which applications use as it is.

/// A note (`json:Note`).
struct Note: Codable, Sendable, Hashable {
    var title: String
    var body: String
    var tags: [String]
}

/// Metadata kept beside notes (`json:NoteMeta`).
struct NoteMeta: Codable, Sendable, Hashable {
    var revision: Int
    var pinned: Bool
}

/// A to-do item (`json:TaskItem`).
struct TaskItem: Codable, Sendable, Hashable {
    var title: String
    var priority: Int
    var done: Bool
}

/// Application settings (`plist:Settings`, a binary property list).
struct Settings: Codable, Sendable, Hashable {
    var theme: String
    var fontSize: Int
    var sync: Bool
    var servers: [String]
}

/// A credential (`json:Secret`).
struct Secret: Codable, Sendable, Hashable {
    var account: String
    var password: String
}
