/// Reading a view's rows: at an index, first and last, and in order.
extension ViewTransaction {
    /// The collection and key of the first row of `group`, or nil when it is empty.
    /// - Throws: as ``groups()``.
    public func firstKey(inGroup group: String) throws -> CollectionKey? {
        try key(at: 0, inGroup: group)
    }

    /// The collection and key of the last row of `group`, or nil when it is empty.
    /// - Throws: as ``groups()``.
    public func lastKey(inGroup group: String) throws -> CollectionKey? {
        try key(at: numberOfItems(inGroup: group) - 1, inGroup: group)
    }

    /// The object of the row at `index` in `group`, or nil when out of range.
    ///
    /// In a collection without a registered codec this is the stored ``EncodedValue``; read it
    /// as your type with ``object(at:inGroup:as:)``.
    /// - Throws: as ``groups()``, and `.serialization` when the object does not decode.
    public func object(at index: Int, inGroup group: String) throws -> (any Sendable)? {
        try rowValues(at: index, inGroup: group, readingObject: true, readingMetadata: false)?.object.value()
    }

    /// The object of the row at `index` in `group` as `T`, or nil when out of range or of another type.
    /// - Throws: as ``object(at:inGroup:)``.
    public func object<T>(at index: Int, inGroup group: String, as type: T.Type) throws -> T? {
        try rowValues(at: index, inGroup: group, readingObject: true, readingMetadata: false)?.object.value(as: T.self)
    }

    /// The metadata of the row at `index` in `group`, or nil when out of range or absent.
    /// - Throws: as ``object(at:inGroup:)``.
    public func metadata(at index: Int, inGroup group: String) throws -> (any Sendable)? {
        try rowValues(at: index, inGroup: group, readingObject: false, readingMetadata: true)?.metadata.value()
    }

    /// The metadata of the row at `index` in `group` as `T`, or nil when out of range, absent or
    /// of another type.
    /// - Throws: as ``object(at:inGroup:)``.
    public func metadata<T>(at index: Int, inGroup group: String, as type: T.Type) throws -> T? {
        try rowValues(at: index, inGroup: group, readingObject: false, readingMetadata: true)?.metadata.value(
            as: T.self)
    }

    /// The row at `index` in `group` — its key, and its object and metadata, decoded on first
    /// use — or nil when out of range.
    /// - Throws: as ``groups()``.
    public func row(at index: Int, inGroup group: String) throws -> ExtensionRow? {
        try rowValues(at: index, inGroup: group, readingObject: true, readingMetadata: true)
    }

    /// Calls `body` with the collection, key and index of each row of `group`, in order (or
    /// backwards), from `start` on, until it sets `stop`.
    ///
    /// Rows are read a page at a time, so a group of any size costs one page of memory.
    /// Changing the same group inside `body` without setting `stop` right after throws
    /// `mutationDuringEnumeration` (YapDatabase's protection); other groups and other data may change.
    /// - Throws: as ``groups()``, `.mutationDuringEnumeration`, or whatever `body` throws.
    public func enumerateKeys(
        inGroup group: String, from start: Int? = nil, reverse: Bool = false,
        _ body: (_ row: CollectionKey, _ index: Int, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateRows(inGroup: group, from: start, reverse: reverse, readingObject: false, readingMetadata: false) {
            row, index, stop in
            try body(row.collectionKey, index, &stop)
        }
    }

    /// Calls `body` with each row of `group` — its key, and its object and metadata when asked
    /// for (decoded lazily, through the connection's caches) — in order (or backwards), from
    /// `start` on, until it sets `stop`.
    ///
    /// As ``enumerateKeys(inGroup:from:reverse:_:)``, changing the same group inside `body`
    /// without setting `stop` throws `mutationDuringEnumeration`.
    /// - Throws: as ``enumerateKeys(inGroup:from:reverse:_:)``.
    public func enumerateRows(
        inGroup group: String, from start: Int? = nil, reverse: Bool = false, readingObject: Bool = true,
        readingMetadata: Bool = true, _ body: (_ row: ExtensionRow, _ index: Int, _ stop: inout Bool) throws -> Void
    ) throws {
        let count = try numberOfItems(inGroup: group)
        var next = start ?? (reverse ? count - 1 : 0)
        let mutations = mutationCount(of: group)
        while next >= 0 && next < count {
            var chunk: [(index: Int, rowid: Int64)] = []
            try withList(group) { list in
                try list.enumerate(from: next, reverse: reverse) { index, rowid, stop in
                    chunk.append((index, rowid))
                    stop = chunk.count == ViewPage.maximumRowCount
                }
            }
            guard let last = chunk.last else { return }
            for (index, rowid) in chunk {
                guard
                    let row = try context.row(
                        forRowid: rowid, readingObject: readingObject, readingMetadata: readingMetadata)
                else {
                    throw DatabaseError(
                        .corrupt, "group \"\(group)\" of view \"\(registeredName)\" lists a row that is gone")
                }
                var stop = false
                try body(row, index, &stop)
                if stop { return }
                if mutationCount(of: group) != mutations {
                    throw DatabaseError(
                        .mutationDuringEnumeration,
                        "group \"\(group)\" of view \"\(registeredName)\" was changed inside its enumeration, "
                            + "which did not set stop")
                }
            }
            next = reverse ? last.index - 1 : last.index + 1
        }
    }

    /// How often `group` changed in this transaction.
    private func mutationCount(of group: String) -> Int {
        (groupMutations[group] ?? 0) + allGroupMutations
    }

    /// The row at `index` of `group`, reading the parts asked for, or nil when out of range.
    private func rowValues(
        at index: Int, inGroup group: String, readingObject: Bool, readingMetadata: Bool
    ) throws -> ExtensionRow? {
        guard let rowid = try withList(group, { try $0.rowid(at: index) }) else { return nil }
        return try context.row(forRowid: rowid, readingObject: readingObject, readingMetadata: readingMetadata)
    }
}
