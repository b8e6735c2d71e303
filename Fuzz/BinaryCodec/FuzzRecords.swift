import Foundation

/// The types the fuzzer decodes into: every tag, nesting, optionals, enums and a recursive type.
struct FuzzRecord: Codable, Equatable {
    var id: String
    var age: Int
    var score: Double
    var tags: [String]
    var numbers: [Int]?
    var when: Date?
    var blob: Data?
    var link: URL?
    var uuid: UUID?
    var amount: Decimal?
    var flags: [Bool]?
    var children: [FuzzRecord]?
    var choice: FuzzChoice?
    var map: [String: Int8]?
}

/// An enum with associated values.
enum FuzzChoice: Codable, Equatable {
    case plain
    case number(Int64)
    case pair(left: UInt16, right: String?)
    indirect case nested([FuzzChoice])
}
