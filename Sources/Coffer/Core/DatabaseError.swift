public import Foundation

/// Every error Coffer's database layer throws: a code to switch on plus the context it happened in.
///
/// Descriptions name the file, collection and key involved, and never contain key bytes,
/// passphrases or stored values.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    ///
    /// Compare with `==` or use in a `switch` (`case .wrongKey:`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The key does not open the file (or page 1 is damaged: SQLCipher cannot tell these apart).
        public static let wrongKey = Code(rawValue: "wrongKey")
        /// The file is encrypted but no key was given.
        public static let keyRequired = Code(rawValue: "keyRequired")
        /// The passphrase does not unlock the envelope key file.
        public static let wrongPassphrase = Code(rawValue: "wrongPassphrase")
        /// The envelope key file is damaged or of an unknown format (the database itself may be fine).
        public static let damagedKeyFile = Code(rawValue: "damagedKeyFile")
        /// A key was given but the file is a plaintext SQLite database.
        public static let notEncrypted = Code(rawValue: "notEncrypted")
        /// The file is not a database at all.
        public static let notADatabase = Code(rawValue: "notADatabase")
        /// The key is empty or malformed (for example a raw key that is not 32 bytes).
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// A zero-length file was found where a database was expected.
        public static let emptyFile = Code(rawValue: "emptyFile")
        /// The file is damaged (SQLite reported corruption).
        public static let corrupt = Code(rawValue: "corrupt")
        /// A read or write of the file failed, or the disk is full.
        public static let io = Code(rawValue: "io")
        /// Another process holds a lock on the file for longer than the busy timeout.
        public static let busy = Code(rawValue: "busy")
        /// The file or directory cannot be written.
        public static let readOnly = Code(rawValue: "readOnly")
        /// The API was used in a way it does not support (nested transaction, second open, …).
        public static let misuse = Code(rawValue: "misuse")
        /// The cipher settings cannot be used with the linked SQLCipher.
        public static let unsupportedCipherSettings = Code(rawValue: "unsupportedCipherSettings")
        /// The linked SQLite library is not SQLCipher.
        public static let notSQLCipher = Code(rawValue: "notSQLCipher")
        /// The file's format version is newer than this version of Coffer understands.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// A value could not be serialized or deserialized; `underlying` holds the stage's error.
        public static let serialization = Code(rawValue: "serialization")
        /// A stored value is not of the type the caller asked for.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The database was mutated inside an enumeration that did not stop.
        public static let mutationDuringEnumeration = Code(rawValue: "mutationDuringEnumeration")
        /// An extension failed or is not registered.
        public static let extensionFailure = Code(rawValue: "extensionFailure")
        /// An item that must be new already exists (``CredentialStore/add(_:)``).
        public static let duplicateItem = Code(rawValue: "duplicateItem")
        /// An item that must exist does not (``CredentialStore/update(_:)``).
        public static let itemNotFound = Code(rawValue: "itemNotFound")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The database was closed with ``Database/close(timeout:)-11g9c``; open it again to go on.
        public static let closed = Code(rawValue: "closed")
        /// Any other SQLite failure; `sqliteCode` says which.
        public static let sqlite = Code(rawValue: "sqlite")
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The database file involved, if any.
    public var path: String?
    /// The collection involved, if any.
    public var collection: String?
    /// The row key involved, if any.
    public var key: String?
    /// The SQLite primary result code, when the failure came from SQLite.
    public var sqliteCode: Int32?
    /// The error that caused this one (a ``SerializationError``, a stage error, …).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, path: String? = nil, collection: String? = nil, key: String? = nil,
        sqliteCode: Int32? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.collection = collection
        self.key = key
        self.sqliteCode = sqliteCode
        self.underlying = underlying
    }

    /// `code: message (collection/key, file)`, with the underlying error when there is one,
    /// then what to do about it (``recoverySuggestion``).
    public var description: String {
        var text = "\(code): \(message)"
        var context: [String] = []
        if let collection { context.append("collection \"\(collection)\"") }
        if let key { context.append("key \"\(key)\"") }
        if let path { context.append("file \(path)") }
        if let sqliteCode { context.append("SQLite code \(sqliteCode)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        switch underlying {
        case let error as SerializationError: text += " — \(error.summary)"
        case let error as KeyFileError: text += " — \(error.summary)"
        case let error?: text += " — \(error)"
        case nil: break
        }
        return text + ". " + suggestion
    }

    /// The advice of the most specific error in the chain: a wrapped serialization or key-file
    /// error knows better than the database code what went wrong.
    var suggestion: String {
        switch underlying {
        case let error as SerializationError: error.code.recoverySuggestion
        case let error as KeyFileError: error.code.recoverySuggestion
        default: code.recoverySuggestion
        }
    }
}

extension DatabaseError: LocalizedError {
    /// Same as ``description``, for Foundation's error reporting.
    public var errorDescription: String? { description }

    /// What to do about the error: the wrapped serialization or key-file error's advice when
    /// there is one, otherwise ``Code/recoverySuggestion``.
    public var recoverySuggestion: String? { suggestion }
}
