/// The row-key format `CredentialStore` wrote up to revision 99541a4, which stores migrate when they open.
///
/// It joined service, account and access group with U+001F without escaping, so distinct
/// identifiers could share a key ("a\u{1F}b" + "c" and "a" + "b\u{1F}c"; a nil and an empty
/// group). Every such key holds at least two U+001F, which ``CredentialKey/key(for:)`` never
/// writes.
extension CredentialKey {
    /// The key `id` had in the old format.
    static func legacyKey(for id: CredentialID) -> String {
        legacyServicePrefix(id.service) + id.account + "\u{1F}" + (id.accessGroup ?? "")
    }

    /// What the old-format keys of `service` start with; so do some keys of other services whose
    /// service or account holds U+001F, which is why an item's own `id` decides.
    static func legacyServicePrefix(_ service: String) -> String {
        service + "\u{1F}"
    }

    /// Whether `key` is in the old format.
    static func isLegacy(_ key: String) -> Bool {
        key.utf8.contains(legacySeparator)
    }
}
