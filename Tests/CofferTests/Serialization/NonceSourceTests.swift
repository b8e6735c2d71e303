import Testing

@testable import Coffer

@Suite("Nonce source")
struct NonceSourceTests {
    @Test("Nonces are never repeated, across several pool refills")
    func unique() {
        var seen = Set<[UInt8]>()
        for _ in 0..<2000 {
            var nonce = [UInt8](repeating: 0, count: 12)
            let filled = nonce.withUnsafeMutableBytes { NonceSource.fill($0) }
            #expect(filled)
            seen.insert(nonce)
        }
        #expect(seen.count == 2000)
    }

    @Test("Requests larger than the pool are refused rather than served twice")
    func oversized() {
        var big = [UInt8](repeating: 0, count: NonceSource.Pool.capacity + 1)
        #expect(!big.withUnsafeMutableBytes { NonceSource.fill($0) })
    }
}
