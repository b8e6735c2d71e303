/// The array types the coders pack, identified once: naming `[String].self` in a generic function
/// looks the metadata of `Array<String>` up in the runtime's cache on every call, which cost a
/// decoding a third of its instructions.
struct BinaryKnownTypes: Sendable {
    static let shared = BinaryKnownTypes()

    let strings = ObjectIdentifier([String].self)
    let ints = ObjectIdentifier([Int].self)
    let doubles = ObjectIdentifier([Double].self)
    let floats = ObjectIdentifier([Float].self)
    let bools = ObjectIdentifier([Bool].self)
    let int64s = ObjectIdentifier([Int64].self)
    let int32s = ObjectIdentifier([Int32].self)
    let int16s = ObjectIdentifier([Int16].self)
    let int8s = ObjectIdentifier([Int8].self)
    let uints = ObjectIdentifier([UInt].self)
    let uint64s = ObjectIdentifier([UInt64].self)
    let uint32s = ObjectIdentifier([UInt32].self)
    let uint16s = ObjectIdentifier([UInt16].self)
    let uint8s = ObjectIdentifier([UInt8].self)

    /// Whether a packed array may decode straight into the type `id` names.
    func packsDirectly(_ id: ObjectIdentifier) -> Bool {
        id == ints || id == doubles || id == int64s || id == uint8s || id == floats || id == bools
    }
}
