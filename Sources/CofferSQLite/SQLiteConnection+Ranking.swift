internal import CSQLCipher
import Foundation

/// Okapi BM25 relevance over FTS4's `matchinfo(<table>, 'pcnalx')`: FTS3/FTS4 have no rank of
/// their own, so every connection gets `coffer_bm25(matchinfo, weight…)` as a SQL function.
///
/// ```sql
/// SELECT rowid, coffer_bm25(matchinfo(fts, 'pcnalx'), 2.0, 1.0) AS score
/// FROM fts WHERE fts MATCH ? ORDER BY score DESC
/// ```
///
/// The optional arguments weight the columns in order (1.0 for the columns not given); a higher
/// score is a better match.
package enum BM25 {
    /// The SQL name of the function.
    package static let functionName = "coffer_bm25"
    /// Term-frequency saturation.
    static let k1 = 1.2
    /// Length normalisation.
    static let b = 0.75

    /// The score of one row from its `pcnalx` values, or nil when they are too few for their counts.
    package static func score(matchinfo values: [UInt32], weights: [Double]) -> Double? {
        guard values.count >= 3 else { return nil }
        let (phrases, columns, rows) = (Int(values[0]), Int(values[1]), Double(values[2]))
        let hits = 3 + 2 * columns
        guard values.count >= hits + 3 * phrases * columns else { return nil }
        var score = 0.0
        for phrase in 0..<phrases {
            for column in 0..<columns {
                let weight = column < weights.count ? weights[column] : 1.0
                let offset = hits + 3 * (column + phrase * columns)
                let frequency = Double(values[offset])
                guard weight != 0, frequency > 0 else { continue }
                let documents = Double(values[offset + 2])
                // The "+ 1" keeps a term found in most rows from scoring below zero.
                let idf = log(1 + (rows - documents + 0.5) / (documents + 0.5))
                let average = Double(values[3 + column])
                let length = Double(values[3 + columns + column])
                let relativeLength = average > 0 ? length / average : 1
                score += weight * idf * frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * relativeLength))
            }
        }
        return score
    }
}

extension SQLiteConnection {
    /// Adds ``BM25/functionName`` to this handle (every handle has it, so any statement may rank).
    func registerRankingFunctions() {
        sqlite3_create_function_v2(
            handle, BM25.functionName, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in rankBM25(context, count, arguments) }, nil, nil, nil)
    }
}

/// The C side of ``BM25``: reads the matchinfo blob and the weights, and sets the result.
private func rankBM25(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let context else { return }
    guard count >= 1, let arguments, let blob = sqlite3_value_blob(arguments[0]) else {
        sqlite3_result_error(context, "\(BM25.functionName) needs matchinfo(<table>, 'pcnalx') first", -1)
        return
    }
    let raw = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_value_bytes(arguments[0])))
    let values = (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
    let weights = (1..<Int(count)).map { sqlite3_value_double(arguments[$0]) }
    guard let score = BM25.score(matchinfo: values, weights: weights) else {
        sqlite3_result_error(context, "\(BM25.functionName) needs matchinfo(<table>, 'pcnalx') first", -1)
        return
    }
    sqlite3_result_double(context, score)
}
