import Coffer
import CofferFuzzSupport
import Foundation

/// The decoder on any bytes: it returns a value or throws a `DecodingError`, malformed bytes as
/// `dataCorrupted` carrying a `BinaryFormatError`; a decoded value re-encodes and decodes to
/// itself; a JSON rendering, when there is one, is valid JSON; the bytes the decoder accepts
/// never break the renderer's promise either.
enum BinaryCodecChecks {
    static func check(_ bytes: Data) {
        checkDecoding(FuzzRecord.self, bytes)
        checkDecoding([FuzzChoice].self, bytes)
        checkDecoding([String: [Double]].self, bytes)
        checkRendering(bytes)
    }

    static func checkDecoding<T: Codable & Equatable>(_ type: T.Type, _ bytes: Data) {
        let value: T
        do {
            value = try BinaryDecoder().decode(T.self, from: bytes)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.underlyingError != nil {
                fuzzCheck(context.underlyingError is BinaryFormatError, "dataCorrupted with a foreign error")
            }
            return
        } catch {
            fuzzCheck(false, "decoding threw \(Swift.type(of: error)), not a DecodingError")
            return
        }
        fuzzCheck(BinaryDecoder.isBinary(bytes), "decoded bytes that do not start with 0xC1")
        let encoded: Data
        do {
            encoded = try BinaryEncoder().encode(value)
        } catch {
            fuzzCheck(false, "a decoded \(T.self) does not encode: \(error)")
            return
        }
        guard let again = try? BinaryDecoder().decode(T.self, from: encoded) else {
            fuzzCheck(false, "the encoding of a decoded \(T.self) does not decode")
            return
        }
        // NaN never equals itself and dictionaries encode in no fixed order: compare sorted JSON.
        fuzzCheck(
            again == value || canonical(again) == canonical(value), "a \(T.self) changed through encode and decode")
    }

    /// `value` as JSON with sorted keys and non-finite numbers as text: equal for equal values,
    /// NaN included.
    static func canonical<T: Encodable>(_ value: T) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return try? encoder.encode(value)
    }

    static func checkRendering(_ bytes: Data) {
        let json: Data
        do {
            json = try BinaryDecoder.jsonRepresentation(of: bytes)
        } catch {
            return
        }
        fuzzCheck(
            (try? JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed)) != nil,
            "the JSON rendering is not JSON")
    }
}
