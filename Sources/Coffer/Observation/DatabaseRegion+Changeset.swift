/// Deciding whether a commit touched a region.
extension DatabaseRegion {
    /// Whether `changeset` may have changed what a read of this region returns.
    ///
    /// Errs on the side of yes: a touched row counts as changed, and an extension whose covered
    /// collections cannot be known counts every row change.
    /// - Complexity: O(1) for rows alone; O(rows the commit changed) once a collection or an
    ///   extension is in the region.
    func isModified(by changeset: Changeset, in database: Database) -> Bool {
        if isEmpty { return false }
        if changeset.isReset { return true }
        let anyRowChange =
            !changeset.rows.isEmpty || !changeset.removedKeys.isEmpty || !changeset.removedCollections.isEmpty
            || changeset.allKeysRemoved
        if isEverything {
            return anyRowChange || changeset.customObject != nil || !changeset.extensionChanges.isEmpty
                || !changeset.registeredExtensions.isEmpty || !changeset.unregisteredExtensions.isEmpty
        }
        if extensions.contains(where: changeset.hasExtensionChange) { return true }
        guard anyRowChange else { return false }
        if changeset.allKeysRemoved { return true }
        // The collections an extension covers, or nil when it may cover any.
        var covered: [AllowList<String>] = []
        for name in extensions {
            guard let allowList = Self.coveredCollections(ofExtension: name, in: database) else { return true }
            covered.append(allowList)
        }
        let inRegion = { (collection: String) -> Bool in
            collections.contains(collection) || covered.contains { $0.isAllowed(collection) }
        }
        let watchesCollections = !collections.isEmpty || !covered.isEmpty
        if rows.contains(where: { changeset.changes($0, object: true, metadata: true) }) { return true }
        if watchesCollections, changeset.removedCollections.contains(where: inRegion) { return true }
        guard watchesCollections else { return false }
        if changeset.removedKeys.contains(where: { inRegion($0.collection) }) { return true }
        return changeset.rows.changes.keys.contains { inRegion($0.collection) }
    }

    /// The collections a registered extension derives from, when it says.
    private static func coveredCollections(ofExtension name: String, in database: Database) -> AllowList<String>? {
        database.registeredExtension(name)?.derivedCollections
    }
}
