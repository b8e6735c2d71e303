import Foundation

/// The JSON shapes of a key file, decoded strictly by type and then validated field by field.
extension KeyFile {
    /// The fields read first, so that a newer version is reported as such even if its other
    /// fields changed shape.
    struct HeaderDocument: Decodable {
        var format: String
        var version: Int
    }

    /// The whole document of format version 1.
    struct FileDocument: Codable {
        var format: String
        var version: Int
        var keyID: String
        var slots: [SlotDocument]
        var checksum: String
    }

    /// One slot: binary fields are base64.
    struct SlotDocument: Codable {
        var label: String
        var kdf: KDFDocument
        var salt: String
        var check: String
        var nonce: String
        var ciphertext: String
        var tag: String

        init(_ slot: Slot) {
            label = slot.label
            kdf = KDFDocument(slot.parameters)
            salt = Data(slot.salt).base64EncodedString()
            check = Data(slot.check).base64EncodedString()
            nonce = Data(slot.nonce).base64EncodedString()
            ciphertext = Data(slot.ciphertext).base64EncodedString()
            tag = Data(slot.tag).base64EncodedString()
        }

        /// Checks every field and builds the slot.
        ///
        /// - Throws: `damaged`, naming the slot's position and the field at fault.
        func validated(index: Int) throws(KeyFileError) -> Slot {
            if let failure = KeyFile.labelFailure(label) {
                throw KeyFile.damaged("slot \(index): \(failure)")
            }
            let parameters = try kdf.parameters(slot: index)
            return Slot(
                label: label, parameters: parameters,
                salt: try Self.decode(salt, field: "salt", lengths: Slot.saltLengths, slot: index),
                check: try Self.decode(
                    check, field: "check", lengths: Slot.checkLength...Slot.checkLength, slot: index),
                nonce: try Self.decode(
                    nonce, field: "nonce", lengths: Slot.nonceLength...Slot.nonceLength, slot: index),
                ciphertext: try Self.decode(
                    ciphertext, field: "ciphertext", lengths: DataKey.byteCount...DataKey.byteCount, slot: index),
                tag: try Self.decode(tag, field: "tag", lengths: Slot.tagLength...Slot.tagLength, slot: index))
        }

        private static func decode(
            _ text: String, field: String, lengths: ClosedRange<Int>, slot: Int
        ) throws(KeyFileError) -> [UInt8] {
            guard let data = Data(base64Encoded: text), lengths.contains(data.count) else {
                let size =
                    lengths.count == 1 ? "\(lengths.lowerBound)" : "\(lengths.lowerBound) to \(lengths.upperBound)"
                throw KeyFile.damaged("slot \(slot): \(field) must be \(size) bytes of base64")
            }
            return Array(data)
        }
    }

    /// A slot's KDF: `algorithm` plus the fields that algorithm uses; other fields must be absent.
    struct KDFDocument: Codable {
        var algorithm: String
        var n: Int?
        var r: Int?
        var p: Int?
        var iterations: Int?

        static let scryptName = "scrypt"
        static let pbkdf2Name = "pbkdf2-sha256"

        init(_ parameters: KDFParameters) {
            switch parameters {
            case .scrypt(let n, let r, let p):
                algorithm = Self.scryptName
                self.n = n
                self.r = r
                self.p = p
            case .pbkdf2SHA256(let iterations):
                algorithm = Self.pbkdf2Name
                self.iterations = iterations
            }
        }

        func parameters(slot: Int) throws(KeyFileError) -> KDFParameters {
            let parameters: KDFParameters
            switch algorithm {
            case Self.scryptName:
                guard let n, let r, let p, iterations == nil else {
                    throw KeyFile.damaged("slot \(slot): scrypt needs n, r and p only")
                }
                parameters = .scrypt(n: n, r: r, p: p)
            case Self.pbkdf2Name:
                guard let iterations, n == nil, r == nil, p == nil else {
                    throw KeyFile.damaged("slot \(slot): pbkdf2-sha256 needs iterations only")
                }
                parameters = .pbkdf2SHA256(iterations: iterations)
            default:
                throw KeyFile.damaged("slot \(slot): unknown KDF algorithm")
            }
            if let failure = parameters.validationFailure() {
                throw KeyFile.damaged("slot \(slot): \(failure)")
            }
            return parameters
        }
    }
}
