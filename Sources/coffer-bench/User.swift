/// The fixed benchmark record of BENCHMARKS.md; its JSON encoding with sorted keys is the stored value.
struct User: Codable, Equatable, Sendable {
    var id: String
    var name: String
    var email: String
    var age: Int
    var score: Double
    var tags: [String]
    var bio: String

    /// Builds record `index` at revision `rev` exactly as BENCHMARKS.md defines it (only `age` depends on `rev`).
    init(index: Int, rev: Int) {
        let number = User.sixDigits(index)
        id = "user-\(number)"
        name = "Person Number \(number)"
        email = "person.\(number)@example.com"
        age = User.age(index: index, rev: rev)
        score = Double(index % 1000) + 0.25
        tags = ["tag\(index % 10)", "group\(index % 100)", "tier\(index % 5)"]
        bio = "Bio of user-\(number): likes encrypted storage, long walks on the beach and deterministic benchmarks."
    }

    /// The key of record `index` in collection "users" (its `id`).
    static func key(index: Int) -> String {
        "user-\(sixDigits(index))"
    }

    /// The `age` of record `index` at revision `rev`, without building the record.
    static func age(index: Int, rev: Int) -> Int {
        18 + (index + rev) % 60
    }

    /// `value` zero-padded to six digits, as in the keys; longer numbers are kept whole.
    private static func sixDigits(_ value: Int) -> String {
        let digits = String(value)
        return digits.count >= 6 ? digits : String(repeating: "0", count: 6 - digits.count) + digits
    }
}
