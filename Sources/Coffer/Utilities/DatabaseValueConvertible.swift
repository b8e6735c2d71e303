public import Foundation

/// A Swift value that can be stored in an index column or bound to a query as a ``DatabaseValue``.
///
/// Integers, floating-point numbers, `Bool` (0 or 1), `String`, `Data`, `Date` (seconds since the
/// reference date, as a real) and optionals of them (nil is `NULL`) conform. `UInt` and `UInt64`
/// do not, because not every value fits SQLite's signed 64-bit integers: convert them first.
public protocol DatabaseValueConvertible: DatabaseQueryArgument {
    /// The value as SQLite stores it.
    var databaseValue: DatabaseValue { get }
}

extension DatabaseValueConvertible {
    /// A single value binds one `?`.
    public var queryArgument: DatabaseQuery.Argument { .value(databaseValue) }
}

extension DatabaseValue: DatabaseValueConvertible {
    /// The value itself.
    public var databaseValue: DatabaseValue { self }
}

extension Int: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int8: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int16: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int32: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension UInt8: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension UInt16: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension UInt32: DatabaseValueConvertible {
    /// The integer.
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Double: DatabaseValueConvertible {
    /// The number as a real.
    public var databaseValue: DatabaseValue { .real(self) }
}

extension Float: DatabaseValueConvertible {
    /// The number as a real.
    public var databaseValue: DatabaseValue { .real(Double(self)) }
}

extension Bool: DatabaseValueConvertible {
    /// 1 for true, 0 for false (SQLite has no boolean type).
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
}

extension String: DatabaseValueConvertible {
    /// The text.
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Substring: DatabaseValueConvertible {
    /// The text.
    public var databaseValue: DatabaseValue { .text(String(self)) }
}

extension Data: DatabaseValueConvertible {
    /// The bytes as a blob.
    public var databaseValue: DatabaseValue { .blob(self) }
}

extension Date: DatabaseValueConvertible {
    /// Seconds since the reference date (1 January 2001 UTC) as a real, YapDatabase's encoding.
    public var databaseValue: DatabaseValue { .real(timeIntervalSinceReferenceDate) }
}

extension Optional: DatabaseQueryArgument where Wrapped: DatabaseValueConvertible {}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// The wrapped value, or `NULL` for nil.
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
