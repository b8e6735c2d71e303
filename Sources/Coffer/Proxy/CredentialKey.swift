/// The row keys `CredentialStore` files its items under.
///
/// A key is the service, the account and — when there is one — the access group, each escaped
/// and joined with "/": `api.example.com/alice`, `api.example.com/alice/team`, and
/// `api.example.com/alice/` for an empty group. Escaping writes "%", "/" and every control
/// character as "%XX" per UTF-8 byte (uppercase hex), so no escaped part contains "/": splitting
/// on "/" gives the parts back, and the number of parts tells a nil group from an empty one. The
/// encoding is therefore injective, keys stay readable in `coffer ls`, and none contains U+001F —
/// which is how the format that came before (``legacyKey(for:)``) is told apart.
///
/// Parts are compared as exact Unicode scalar sequences, never by canonical equivalence: SQLite
/// matches keys byte for byte, and a Swift `hasPrefix` would not see "a/" in "a/\u{301}b" (the
/// combining mark joins the "/" into one `Character`).
enum CredentialKey {
    /// Joins the parts of a key.
    static let separator = UInt8(ascii: "/")
    /// Starts an escaped byte.
    static let escapeMark = UInt8(ascii: "%")
    /// Joins the parts of a key in the format written up to revision 99541a4.
    static let legacySeparator: UInt8 = 0x1F

    /// The row key of `id`.
    static func key(for id: CredentialID) -> String {
        var key = servicePrefix(id.service) + escape(id.account)
        if let group = id.accessGroup { key += "/" + escape(group) }
        return key
    }

    /// What every key of `service`, and no other key, starts with (compare with ``hasPrefix(_:_:)``).
    static func servicePrefix(_ service: String) -> String {
        escape(service) + "/"
    }

    /// Whether `key` starts with `prefix`, byte for byte.
    static func hasPrefix(_ key: String, _ prefix: String) -> Bool {
        key.utf8.starts(with: prefix.utf8)
    }

    /// Whether two parts are the same scalars (Swift's `==` also equates canonically equivalent text).
    static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): lhs.utf8.elementsEqual(rhs.utf8)
        default: false
        }
    }

    /// Whether two identifiers have the same parts, scalar for scalar.
    static func same(_ lhs: CredentialID, _ rhs: CredentialID) -> Bool {
        same(lhs.service, rhs.service) && same(lhs.account, rhs.account) && same(lhs.accessGroup, rhs.accessGroup)
    }

    /// The identifier `key` encodes, or nil when `key` is not a key ``key(for:)`` writes.
    static func id(from key: String) -> CredentialID? {
        let parts = key.utf8.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        var decoded: [String] = []
        for part in parts {
            guard let text = unescape(part) else { return nil }
            decoded.append(text)
        }
        let id = CredentialID(
            service: decoded[0], account: decoded[1], accessGroup: parts.count == 3 ? decoded[2] : nil)
        // Only the canonical spelling decodes ("%41" for "A", or lowercase hex, do not), so that
        // decoding is the exact inverse of encoding.
        return Self.key(for: id).utf8.elementsEqual(key.utf8) ? id : nil
    }

    /// `part` with "%", "/" and control characters written as "%XX" of their UTF-8 bytes.
    static func escape(_ part: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in part.unicodeScalars {
            guard scalar == "%" || scalar == "/" || scalar.properties.generalCategory == .control else {
                escaped.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                escaped.append("%")
                escaped.append(contentsOf: hexDigits(byte))
            }
        }
        return String(escaped)
    }

    /// The text an escaped part stands for, or nil when it is not valid escaped UTF-8.
    private static func unescape(_ part: Substring.UTF8View) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.count)
        var index = part.startIndex
        while index != part.endIndex {
            let byte = part[index]
            index = part.index(after: index)
            guard byte == escapeMark else {
                bytes.append(byte)
                continue
            }
            guard index != part.endIndex, let high = hexValue(part[index]) else { return nil }
            index = part.index(after: index)
            guard index != part.endIndex, let low = hexValue(part[index]) else { return nil }
            index = part.index(after: index)
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexDigits(_ byte: UInt8) -> [Unicode.Scalar] {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
