import CofferTestSupport
import Foundation
import Testing

@testable import Coffer

/// Row statements keep their collection bound between rows: alternating collections (long names
/// in heap storage, equal names in other storage) must still reach the right rows.
@Suite struct CollectionAlternationTests {
    private let first = String(repeating: "first-collection-", count: 2)
    private let second = String(repeating: "second-collection-", count: 2)

    @Test func writesAndReadsAlternatingBetweenCollections() throws {
        let test = try TestDatabase()
        test.database.registerData(forCollection: first)
        test.database.registerData(forCollection: second)
        let connection = try test.connection()
        try connection.readWrite { tx in
            for index in 0..<20 {
                let collection = index.isMultiple(of: 2) ? first : second
                try tx.setObject(Data([UInt8(index)]), forKey: "k\(index % 5)", inCollection: collection)
            }
        }
        try connection.read { tx throws in
            for index in 0..<5 {
                // Names rebuilt on each read: equal text in new storage.
                let firstName = String(repeating: "first-collection-", count: 2)
                let secondName = String(repeating: "second-collection-", count: 2)
                #expect(
                    try tx.object(forKey: "k\(index)", inCollection: firstName, as: Data.self)
                        == lastWrite(index, even: true))
                #expect(
                    try tx.object(forKey: "k\(index)", inCollection: secondName, as: Data.self)
                        == lastWrite(index, even: false))
                #expect(try tx.object(forKey: "k\(index)", inCollection: "missing", as: Data.self) == nil)
            }
            #expect(try tx.numberOfKeys(inCollection: first) == 5)
            #expect(try tx.numberOfKeys(inCollection: second) == 5)
        }
    }

    /// The value the last write of key `k<index>` left in the even (first) or odd (second) collection.
    private func lastWrite(_ index: Int, even: Bool) -> Data {
        let writes = (0..<20).filter { $0 % 5 == index && $0.isMultiple(of: 2) == even }
        return Data([UInt8(writes.last ?? 0)])
    }
}
