import Coffer
import CofferFuzzSupport
import Foundation

/// One run's query, read from the input: a flag byte, one byte per argument, for an aggregate a
/// length-prefixed function, then the format (UTF-8, invalid bytes replaced).
///
/// Flag byte: bits 0–2 the argument count, bit 3 an aggregate query. Argument byte: bit 7 set is
/// a list of `byte & 7` integers (0 to 7 elements), otherwise a single value of kind `byte % 5`.
struct QueryCase {
    let arguments: [DatabaseQuery.Argument]
    let function: String?
    let format: String

    /// How many values the arguments bind once lists are expanded.
    var expectedBindings: Int {
        arguments.reduce(0) { total, argument in
            switch argument {
            case .value: total + 1
            case .list(let values): total + values.count
            }
        }
    }

    init(_ input: Data) {
        var reader = FuzzInput(input)
        let flags = reader.byte()
        arguments = (0..<Int(flags & 7)).map { _ in Self.argument(reader.byte()) }
        if flags & 8 != 0 {
            let length = Int(reader.byte())
            function = String(decoding: reader.bytes(length), as: UTF8.self)
        } else {
            function = nil
        }
        format = String(decoding: reader.rest(), as: UTF8.self)
    }

    private static func argument(_ byte: UInt8) -> DatabaseQuery.Argument {
        if byte & 0x80 != 0 {
            return .list((0..<Int(byte & 7)).map { .integer(Int64($0)) })
        }
        let values: [DatabaseValue] = [.null, .integer(7), .real(2.5), .text("x?;'"), .blob(Data([0, 0x3F]))]
        return .value(values[Int(byte) % values.count])
    }

    /// The input bytes that describe a query (for writing seeds).
    static func encode(format: String, arguments: [UInt8], function: String? = nil) -> Data {
        var bytes = Data([UInt8(arguments.count & 7) | (function == nil ? 0 : 8)])
        bytes.append(contentsOf: arguments)
        if let function {
            let utf8 = Array(function.utf8.prefix(255))
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(contentsOf: Array(format.utf8))
        return bytes
    }
}
