import Foundation

/// Per-row tags and attachments to cloud identifiers, removed with their rows.
extension CloudCoreTransaction {
    /// The tag `identifier` (an ETag, a version stamp) of the row `key` in `collection`, or nil.
    /// - Throws: ``CloudCoreError`` `.featureDisabled` unless ``CloudCoreOptions/enablesTags``.
    public func tag(forKey key: String, inCollection collection: String?, identifier: String = "") throws
        -> DatabaseValue?
    {
        try checkFeature(state.cloudCore.options.enablesTags, "tags")
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return nil }
        let value = try tables.scalar(sql.selectTag, [.integer(rowid), .text(identifier)])
        return value?.isNull == false ? value : nil
    }

    /// Every tag of the row `key` in `collection`, by identifier.
    /// - Throws: as ``tag(forKey:inCollection:identifier:)``.
    public func tags(forKey key: String, inCollection collection: String?) throws -> [String: DatabaseValue] {
        try checkFeature(state.cloudCore.options.enablesTags, "tags")
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return [:] }
        var tags: [String: DatabaseValue] = [:]
        try tables.query(sql.selectTags, [.integer(rowid)]) { row, _ in tags[row.text(at: 0)] = row.value(at: 1) }
        return tags
    }

    /// Sets (or with nil removes) the tag `identifier` of the row `key` in `collection`; it is
    /// removed with the row.
    /// - Throws: ``CloudCoreError`` `.rowNotFound` when the row does not exist, `.featureDisabled`,
    ///   `.misuse` in a read-only transaction.
    public func setTag(
        _ tag: DatabaseValue?, forKey key: String, inCollection collection: String?, identifier: String = ""
    ) throws {
        try checkFeature(state.cloudCore.options.enablesTags, "tags")
        let rowid = try changedRow(key: key, collection: collection)
        if let tag, !tag.isNull {
            try tables.run(sql.upsertTag, [.integer(rowid), .text(identifier), tag])
        } else {
            try tables.run(sql.deleteTag, [.integer(rowid), .text(identifier)])
        }
    }

    /// Removes every tag of the row `key` in `collection`.
    /// - Throws: as ``setTag(_:forKey:inCollection:identifier:)``.
    public func removeAllTags(forKey key: String, inCollection collection: String?) throws {
        try checkFeature(state.cloudCore.options.enablesTags, "tags")
        try tables.run(sql.deleteTagsOfRow, [.integer(changedRow(key: key, collection: collection))])
    }

    /// Attaches the row `key` in `collection` to the cloud identifier `cloudID` (a remote path, a record name).
    ///
    /// A row may have several, an identifier several rows. Attaching twice is one attachment. It
    /// is removed with the row. A row that does not exist yet is attached when this transaction
    /// inserts it (YapDatabase's pending attach); if the transaction ends without it, nothing is attached.
    /// - Throws: ``CloudCoreError`` `.featureDisabled` unless ``CloudCoreOptions/enablesAttachments``,
    ///   `.misuse` in a read-only transaction.
    public func attach(cloudID: String, forKey key: String, inCollection collection: String?) throws {
        try checkFeature(state.cloudCore.options.enablesAttachments, "attachments")
        try checkWritable()
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else {
            pendingAttachments[CollectionKey(collection: collection ?? "", key: key), default: []].insert(cloudID)
            return
        }
        try tables.run(sql.insertMapping, [.integer(rowid), .text(cloudID)])
    }

    /// Detaches the row from `cloudID`; nothing happens when it was not attached.
    /// - Throws: as ``attach(cloudID:forKey:inCollection:)``.
    public func detach(cloudID: String, forKey key: String, inCollection collection: String?) throws {
        try checkFeature(state.cloudCore.options.enablesAttachments, "attachments")
        try checkWritable()
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else {
            pendingAttachments[CollectionKey(collection: collection ?? "", key: key)]?.remove(cloudID)
            return
        }
        try tables.run(sql.deleteMapping, [.integer(rowid), .text(cloudID)])
    }

    /// The cloud identifiers the row `key` in `collection` is attached to, sorted.
    /// - Throws: ``CloudCoreError`` `.featureDisabled`.
    public func cloudIDs(forKey key: String, inCollection collection: String?) throws -> [String] {
        try checkFeature(state.cloudCore.options.enablesAttachments, "attachments")
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else { return [] }
        var ids: [String] = []
        try tables.query(sql.selectCloudIDs, [.integer(rowid)]) { row, _ in ids.append(row.text(at: 0)) }
        return ids
    }

    /// The rows attached to `cloudID`, sorted by collection and key.
    /// - Throws: ``CloudCoreError`` `.featureDisabled`.
    public func rows(attachedTo cloudID: String) throws -> [CollectionKey] {
        try checkFeature(state.cloudCore.options.enablesAttachments, "attachments")
        var rows: [CollectionKey] = []
        try tables.query(sql.selectAttachedRows, [.text(cloudID)]) { row, _ in
            rows.append(CollectionKey(collection: row.text(at: 0), key: row.text(at: 1)))
        }
        return rows
    }

    private func checkFeature(_ enabled: Bool, _ feature: String) throws {
        try checkRegistered()
        guard enabled else {
            throw CloudCoreError(
                .featureDisabled, "cloud core \"\(registeredName)\" was registered without \(feature) enabled")
        }
    }

    /// The rowid of a row a change names, which must exist, in a read-write transaction.
    private func changedRow(key: String, collection: String?) throws -> Int64 {
        try checkWritable()
        guard let rowid = try context.rowid(forKey: key, inCollection: collection) else {
            throw CloudCoreError(
                .rowNotFound,
                "cloud core \"\(registeredName)\": no row \"\(key)\" in collection \"\(collection ?? "")\"")
        }
        return rowid
    }
}
