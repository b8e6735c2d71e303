import Foundation

/// One run: the header parser, the chain's decoder and its round trip on one input.
///
/// Exported under libFuzzer's name too: the runtime's own `main` (linked in, but replaced by
/// SwiftPM's) refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = start.map { Data(bytes: $0, count: count) } ?? Data()
    let run = BlobCase(input)
    HeaderChecks.check(run.blob)
    ChainChecks.checkDecode(run)
    _ = run.chain.needsReencryption(run.blob)
    ChainChecks.checkRoundTrip(run.blob, through: run)
    return 0
}
