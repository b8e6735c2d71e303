public import Foundation

/// A value as SQLite stores it: what an index column holds, what a query binds, what an
/// aggregate returns.
///
/// `Date`s are stored as ``real(_:)`` seconds since the reference date (1 January 2001 UTC,
/// `timeIntervalSinceReferenceDate`), as YapDatabase does, so they compare and sort as numbers:
///
/// ```swift
/// let query = try DatabaseQuery(format: "WHERE hired >= ?", cutoff)   // cutoff: Date
/// ```
public enum DatabaseValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A double-precision float.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)

    /// Whether this is `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as an integer: integers as they are, reals truncated toward zero when they fit,
    /// nil for anything else.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value.rounded(.towardZero))
        default: nil
        }
    }

    /// The value as a double: reals as they are, integers converted, nil for anything else.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// The text, or nil when the value is not text.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, or nil when the value is not a blob.
    public var dataValue: Data? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// The value read as a date (a number of seconds since the reference date), or nil when it is
    /// not a number.
    public var dateValue: Date? {
        doubleValue.map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// The kind of value, never its contents (values may be secrets and end up in logs).
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}
