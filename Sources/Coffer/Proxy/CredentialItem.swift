public import Foundation

/// Identifies one credential: a service, an account, and an optional access group.
///
/// Every part may hold any text, separators and control characters included, and a nil access
/// group is another identifier than an empty one: ``CredentialStore`` keeps distinct identifiers
/// in distinct rows. The store compares parts exactly, Unicode scalar by scalar; `==` on this type
/// follows `String` and also equates canonically equivalent spellings ("é" as one scalar or as
/// "e" plus a combining accent), which the store keeps apart.
public struct CredentialID: Hashable, Sendable, Codable {
    /// The service the credential is for ("api.example.com", "smtp", …).
    public var service: String
    /// The account within the service.
    public var account: String
    /// An optional group sharing the credential (like a Keychain access group).
    public var accessGroup: String?

    /// Creates an identifier.
    public init(service: String, account: String, accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }
}

/// A stored secret with its attributes.
public struct CredentialItem: Sendable, Codable, Equatable {
    /// Which credential this is.
    public var id: CredentialID
    /// The secret bytes (a password, a token, a private key).
    public var secret: Data
    /// A human-readable label.
    public var label: String?
    /// A free-form comment.
    public var comment: String?
    /// Application-defined attributes.
    public var attributes: [String: String]
    /// When the item was first added (set by the store).
    public internal(set) var creationDate: Date
    /// When the item was last changed (set by the store).
    public internal(set) var modificationDate: Date

    /// Creates an item holding `secret`.
    public init(
        id: CredentialID, secret: Data, label: String? = nil, comment: String? = nil, attributes: [String: String] = [:]
    ) {
        self.id = id
        self.secret = secret
        self.label = label
        self.comment = comment
        self.attributes = attributes
        self.creationDate = Date(timeIntervalSinceReferenceDate: 0)
        self.modificationDate = creationDate
    }

    /// Creates an item holding the UTF-8 bytes of `secret`.
    public init(id: CredentialID, secret: String, label: String? = nil, comment: String? = nil) {
        self.init(id: id, secret: Data(secret.utf8), label: label, comment: comment)
    }

    /// The secret as UTF-8 text, when it is valid UTF-8.
    public var secretString: String? { String(data: secret, encoding: .utf8) }
}
