import Coffer
import Foundation

/// The invariant-keeping data set shared by the child and the tests: `accounts` balances that
/// always sum to ``total``, and a counter bumped in the same transaction as every transfer.
enum LedgerSchema {
    /// The collection of account balances (`Int64`).
    static let accounts = "accounts"
    /// The collection holding the counter row.
    static let meta = "meta"
    /// The key of the counter row.
    static let counterKey = "counter"
    /// The number of accounts.
    static let accountCount = 10
    /// The sum of all balances, in every committed state.
    static let total: Int64 = 10_000

    /// The key of account `index`.
    static func accountKey(_ index: Int) -> String { "a\(index)" }

    /// Registers the codecs for both collections.
    static func register(_ database: Database) {
        database.registerCodable(Int64.self, forCollection: accounts)
        database.registerCodable(Int64.self, forCollection: meta)
    }

    /// Creates the accounts and the counter when the database is new.
    /// - Throws: ``DatabaseError``.
    static func seedIfNeeded(_ connection: Connection) throws {
        try connection.readWrite { tx in
            guard try tx.object(forKey: counterKey, inCollection: meta, as: Int64.self) == nil else { return }
            let share = total / Int64(accountCount)
            for index in 0..<accountCount {
                try tx.setObject(share, forKey: accountKey(index), inCollection: accounts)
            }
            try tx.setObject(Int64(0), forKey: counterKey, inCollection: meta)
        }
    }

    /// Moves a random amount between two random accounts and bumps the counter, in one transaction.
    /// - Returns: the new counter value.
    /// - Throws: ``DatabaseError``, or ``StressError`` when a row is missing.
    static func transfer(_ connection: Connection, using rng: inout SplitMix64) throws -> Int64 {
        let from = Int.random(in: 0..<accountCount, using: &rng)
        let to = (from + Int.random(in: 1..<accountCount, using: &rng)) % accountCount
        let amount = Int64.random(in: 1...50, using: &rng)
        return try connection.readWrite { tx in
            guard let source = try tx.object(forKey: accountKey(from), inCollection: accounts, as: Int64.self),
                let target = try tx.object(forKey: accountKey(to), inCollection: accounts, as: Int64.self),
                let counter = try tx.object(forKey: counterKey, inCollection: meta, as: Int64.self)
            else { throw StressError("the ledger is incomplete") }
            try tx.setObject(source - amount, forKey: accountKey(from), inCollection: accounts)
            try tx.setObject(target + amount, forKey: accountKey(to), inCollection: accounts)
            try tx.setObject(counter + 1, forKey: counterKey, inCollection: meta)
            return counter + 1
        }
    }
}
