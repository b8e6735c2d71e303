import Foundation

/// The seed corpus: the formats Coffer's tests and documentation use, accepted and refused ones,
/// with matching argument kinds (lists included), and a few aggregates.
enum QuerySeeds {
    static func make() -> [(name: String, bytes: Data)] {
        let text: UInt8 = 3
        let integer: UInt8 = 1
        let list3: UInt8 = 0x83
        let empty: UInt8 = 0x80
        let cases: [(String, String, [UInt8], String?)] = [
            ("empty", "", [], nil),
            ("one", "WHERE department = ?", [text], nil),
            ("two", "WHERE department = ? AND salary >= ?", [text, integer], nil),
            ("order", "WHERE department = ? ORDER BY name", [text], nil),
            ("limit", "ORDER BY salary DESC LIMIT 2", [], nil),
            ("in-list", "WHERE department IN (?)", [list3], nil),
            ("in-empty", "WHERE department IN (?)", [empty], nil),
            ("not-in-empty", "WHERE a NOT IN ( ? ) AND b = ?", [empty, integer], nil),
            ("mixed", "WHERE title = ? AND department IN (?) AND level > ?", [text, list3, integer], nil),
            ("quoted", "WHERE name = 'it''s ?' AND a = ?", [integer], nil),
            ("identifiers", "WHERE \"a\" = ? AND [b] = ? AND `c` = ?", [integer, 0, 4], nil),
            ("comments", "WHERE a = ? -- ?\n AND b = /* ? */ ?", [integer, integer], nil),
            ("semicolon", "WHERE a = ?; DROP TABLE t", [integer], nil),
            ("numbered", "WHERE a = ?1", [integer], nil),
            ("named", "WHERE a = :name", [], nil),
            ("open-quote", "WHERE a = 'open", [], nil),
            ("open-comment", "WHERE a = 1 /* open", [], nil),
            ("dollar-identifier", "WHERE a$b = ?", [integer], nil),
            ("case", "WHERE CASE WHEN a = ? THEN 1 ELSE 0 END", [integer], nil),
            ("sum", "WHERE department = ?", [text], "SUM(salary)"),
            ("avg", "", [], "AVG(salary)"),
            ("max-list", "WHERE a IN (?)", [list3], "MAX(hired)"),
            ("aggregate-placeholder", "", [], "SUM(?)"),
        ]
        return cases.map { name, format, arguments, function in
            (name, QueryCase.encode(format: format, arguments: arguments, function: function))
        }
    }
}
