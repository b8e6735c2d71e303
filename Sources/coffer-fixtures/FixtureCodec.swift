import Coffer
import CofferFixtureSupport
import Foundation

/// The codecs fixtures use, named in the manifest as `json:<Type>`, `plist:<Type>`, `timestamp`, `string`, `data`.
///
/// `json:CredentialItem` is Coffer's own type: the credential-store fixture stores what the store stores.
enum FixtureCodec: String, Encodable, Sendable {
    case note = "json:Note"
    case noteMeta = "json:NoteMeta"
    case taskItem = "json:TaskItem"
    case secret = "json:Secret"
    case credentialItem = "json:CredentialItem"
    case settingsPlist = "plist:Settings"
    case timestamp
    case string
    case data

    /// The Coffer codec.
    var serializer: Serializer {
        switch self {
        case .note: .codable(Note.self)
        case .noteMeta: .codable(NoteMeta.self)
        case .taskItem: .codable(TaskItem.self)
        case .secret: .codable(Secret.self)
        case .credentialItem: .codable(CredentialItem.self)
        case .settingsPlist: .propertyList(Settings.self)
        case .timestamp: .timestamp
        case .string: .string
        case .data: .data
        }
    }

    /// A decoded value as the manifest records it: Codable values as their JSON, a date as its
    /// `timeIntervalSinceReferenceDate`, bytes as hex, text as a string.
    /// - Throws: ``GeneratorError`` when the value is not of the codec's type.
    func json(_ value: any Sendable) throws -> JSONValue {
        switch self {
        case .note: try JSONValue.from(try cast(value, Note.self))
        case .noteMeta: try JSONValue.from(try cast(value, NoteMeta.self))
        case .taskItem: try JSONValue.from(try cast(value, TaskItem.self))
        case .secret: try JSONValue.from(try cast(value, Secret.self))
        case .credentialItem: try JSONValue.from(try cast(value, CredentialItem.self))
        case .settingsPlist: try JSONValue.from(try cast(value, Settings.self))
        case .timestamp: .number(try cast(value, Date.self).timeIntervalSinceReferenceDate)
        case .string: .string(try cast(value, String.self))
        case .data: .string(Hex.string(try cast(value, Data.self)))
        }
    }

    private func cast<T>(_ value: any Sendable, _ type: T.Type) throws -> T {
        guard let typed = value as? T else {
            throw GeneratorError("\(rawValue) cannot record a \(Swift.type(of: value))")
        }
        return typed
    }
}
