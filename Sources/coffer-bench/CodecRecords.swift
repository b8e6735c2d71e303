/// The codec benchmarks' wide record: 50 fields (20 integers, 15 strings, 10 doubles, 5 booleans).
struct Wide50: Codable, Equatable, Sendable {
    var count00: Int
    var count01: Int
    var count02: Int
    var count03: Int
    var label04: String
    var label05: String
    var label06: String
    var ratio07: Double
    var ratio08: Double
    var flag09: Bool
    var count10: Int
    var count11: Int
    var count12: Int
    var count13: Int
    var label14: String
    var label15: String
    var label16: String
    var ratio17: Double
    var ratio18: Double
    var flag19: Bool
    var count20: Int
    var count21: Int
    var count22: Int
    var count23: Int
    var label24: String
    var label25: String
    var label26: String
    var ratio27: Double
    var ratio28: Double
    var flag29: Bool
    var count30: Int
    var count31: Int
    var count32: Int
    var count33: Int
    var label34: String
    var label35: String
    var label36: String
    var ratio37: Double
    var ratio38: Double
    var flag39: Bool
    var count40: Int
    var count41: Int
    var count42: Int
    var count43: Int
    var label44: String
    var label45: String
    var label46: String
    var ratio47: Double
    var ratio48: Double
    var flag49: Bool

    /// Record `index`, deterministic.
    init(index: Int) {
        count00 = index &* 1 % 100_000
        count01 = index &* 2 % 100_000
        count02 = index &* 3 % 100_000
        count03 = index &* 4 % 100_000
        label04 = "field 4 of record \(index)"
        label05 = "field 5 of record \(index)"
        label06 = "field 6 of record \(index)"
        ratio07 = Double(index % 997) / 10
        ratio08 = Double(index % 997) / 11
        flag09 = (index + 9).isMultiple(of: 3)
        count10 = index &* 11 % 100_000
        count11 = index &* 12 % 100_000
        count12 = index &* 13 % 100_000
        count13 = index &* 14 % 100_000
        label14 = "field 14 of record \(index)"
        label15 = "field 15 of record \(index)"
        label16 = "field 16 of record \(index)"
        ratio17 = Double(index % 997) / 20
        ratio18 = Double(index % 997) / 21
        flag19 = (index + 19).isMultiple(of: 3)
        count20 = index &* 21 % 100_000
        count21 = index &* 22 % 100_000
        count22 = index &* 23 % 100_000
        count23 = index &* 24 % 100_000
        label24 = "field 24 of record \(index)"
        label25 = "field 25 of record \(index)"
        label26 = "field 26 of record \(index)"
        ratio27 = Double(index % 997) / 30
        ratio28 = Double(index % 997) / 31
        flag29 = (index + 29).isMultiple(of: 3)
        count30 = index &* 31 % 100_000
        count31 = index &* 32 % 100_000
        count32 = index &* 33 % 100_000
        count33 = index &* 34 % 100_000
        label34 = "field 34 of record \(index)"
        label35 = "field 35 of record \(index)"
        label36 = "field 36 of record \(index)"
        ratio37 = Double(index % 997) / 40
        ratio38 = Double(index % 997) / 41
        flag39 = (index + 39).isMultiple(of: 3)
        count40 = index &* 41 % 100_000
        count41 = index &* 42 % 100_000
        count42 = index &* 43 % 100_000
        count43 = index &* 44 % 100_000
        label44 = "field 44 of record \(index)"
        label45 = "field 45 of record \(index)"
        label46 = "field 46 of record \(index)"
        ratio47 = Double(index % 997) / 50
        ratio48 = Double(index % 997) / 51
        flag49 = (index + 49).isMultiple(of: 3)
    }
}

/// The codec benchmarks' small record, coded 1,000 to an array.
struct SmallRecord: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var value: Double
    var active: Bool

    /// Record `index`, deterministic.
    init(index: Int) {
        id = index
        name = "item-\(index)"
        value = Double(index) * 1.5
        active = index.isMultiple(of: 2)
    }
}
