/// An object in a connection's object cache, kept together with its value typed by its dynamic type.
///
/// A typed read of a cached object checks the box's class (one comparison of metadata pointers)
/// and reads the value where the box keeps it: reading it out of an `any Sendable` instead copies
/// the existential, and whatever box it has, before it can be opened and checked. Untyped reads
/// get ``object``, the very existential that was cached, so they do not box the value again. The
/// price is that a value type's inline bytes are kept twice (what it refers to is shared). The box
/// is made once, when the object enters the cache (``boxing(_:)``), and never changes.
@usableFromInline
class CachedObject: @unchecked Sendable {
    // Safety: immutable once made; its stored properties and its subclass's are Sendable values.

    /// The cached object, as untyped reads return it.
    @usableFromInline let object: any Sendable

    /// Only ``TypedCachedObject`` makes boxes: a typed read relies on every box being one for its
    /// object's dynamic type.
    fileprivate init(object: any Sendable) {
        self.object = object
    }

    /// The box for `object`, typed by its dynamic type.
    static func boxing(_ object: any Sendable) -> CachedObject {
        func box<T: Sendable>(_ value: T) -> CachedObject {
            TypedCachedObject(value, object: object)
        }
        return box(object)
    }

    /// The object as a `T` when its dynamic type is exactly `T`, nil otherwise (a subclass or any
    /// other type, which the caller casts from ``object``).
    @inlinable
    final func value<T: Sendable>(ifExactly type: T.Type) -> T? {
        guard ObjectIdentifier(Swift.type(of: self)) == ObjectIdentifier(TypedCachedObject<T>.self) else {
            return nil
        }
        return unsafeDowncast(self, to: TypedCachedObject<T>.self).value
    }
}

/// The box of a cached object whose dynamic type is `T`.
@usableFromInline
final class TypedCachedObject<T: Sendable>: CachedObject, @unchecked Sendable {
    /// The object, typed.
    @usableFromInline let value: T

    /// Boxes `value`, which is `object` opened.
    fileprivate init(_ value: T, object: any Sendable) {
        self.value = value
        super.init(object: object)
    }
}

extension Cache where Value == CachedObject {
    /// The object cached for `key`, marked most recently used and counted as a hit; nil, counted
    /// as a miss, when there is none.
    mutating func object(forKey key: Key) -> (any Sendable)? {
        value(forKey: key)?.object
    }

    /// Caches `object` for `key`, boxed by its dynamic type, as ``setValue(_:forKey:)`` does.
    mutating func setObject(_ object: any Sendable, forKey key: Key) {
        setValue(CachedObject.boxing(object), forKey: key)
    }
}
