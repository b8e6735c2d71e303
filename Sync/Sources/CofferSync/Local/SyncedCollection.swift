public import Coffer
import Foundation

/// Declares one collection to sync and the Codable types of its objects and metadata, so values
/// travel in Coffer's binary Codable format whatever serializer chain each device uses locally.
public struct SyncedCollection: Sendable {
    /// The collection's name.
    public let name: String
    let readWire: @Sendable (ReadTransaction, String) throws -> (object: Data, metadata: Data?)?
    let writeValue: @Sendable (ReadWriteTransaction, String, SyncValue) throws -> Void
    let decodeWire: @Sendable (Data, Data?) throws -> SyncValue
    let readValue: @Sendable (ReadTransaction, String) throws -> SyncValue?

    /// Syncs `name`, whose objects are `O`; its metadata stays local to each device.
    public static func collection<O: Codable & Sendable>(_ name: String, objects: O.Type) -> SyncedCollection {
        SyncedCollection(name: name, objects: O.self, metadata: NoMetadata.self)
    }

    /// Syncs `name`, whose objects are `O` and metadata `M`.
    public static func collection<O: Codable & Sendable, M: Codable & Sendable>(
        _ name: String, objects: O.Type, metadata: M.Type
    ) -> SyncedCollection {
        SyncedCollection(name: name, objects: O.self, metadata: M.self)
    }

    /// Syncs the collection `handle` names, with its types: a `CollectionHandle`'s
    /// metadata stays local to each device; a `TypedCollection` with a metadata type
    /// syncs its metadata too.
    public static func collection<O, M>(_ handle: TypedCollection<O, M>) -> SyncedCollection {
        SyncedCollection(name: handle.name, objects: O.self, metadata: M.self)
    }

    private init<O: Codable & Sendable, M: Codable & Sendable>(name: String, objects: O.Type, metadata: M.Type) {
        self.name = name
        // Coffer's own marker for untyped metadata means "not synced", as for a CollectionHandle.
        let syncsMetadata = M.self != NoMetadata.self
        let readValue: @Sendable (ReadTransaction, String) throws -> SyncValue? = { tx, key in
            guard let object = try tx.object(forKey: key, inCollection: name, as: O.self) else { return nil }
            let metadata = syncsMetadata ? try tx.metadata(forKey: key, inCollection: name, as: M.self) : nil
            return SyncValue(object: object, metadata: metadata)
        }
        self.readValue = readValue
        readWire = { tx, key in
            guard let value = try readValue(tx, key), let object = value.object as? O else { return nil }
            return (
                try BinaryEncoder().encode(object), try (value.metadata as? M).map { try BinaryEncoder().encode($0) }
            )
        }
        let decodeWire: @Sendable (Data, Data?) throws -> SyncValue = { objectBytes, metadataBytes in
            let object = try BinaryDecoder().decode(O.self, from: objectBytes)
            let metadata = syncsMetadata ? try metadataBytes.map { try BinaryDecoder().decode(M.self, from: $0) } : nil
            return SyncValue(object: object, metadata: metadata)
        }
        self.decodeWire = decodeWire
        writeValue = { tx, key, value in
            // Metadata that is not synced keeps what this device holds.
            let metadata = syncsMetadata ? value.metadata : try tx.metadata(forKey: key, inCollection: name)
            try tx.setObject(value.object, forKey: key, inCollection: name, withMetadata: metadata)
        }
    }

}

/// An object and its metadata, decoded: what a merge handler sees and returns.
public struct SyncValue: @unchecked Sendable {
    // Safety: built from values of a synced collection's `Codable & Sendable` types, or from
    // what a `@Sendable` merge handler returned.

    /// The object.
    public var object: any Sendable
    /// The metadata, if the collection syncs metadata and the row has any.
    public var metadata: (any Sendable)?

    /// An object with optional metadata.
    public init(object: any Sendable, metadata: (any Sendable)? = nil) {
        self.object = object
        self.metadata = metadata
    }
}
