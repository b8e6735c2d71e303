import Foundation

/// One run: the input as a binary value of each fuzzed type, and rendered as JSON.
///
/// Exported under libFuzzer's name too: the runtime's own `main` (linked in, but replaced by
/// SwiftPM's) refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = start.map { Data(bytes: $0, count: count) } ?? Data()
    BinaryCodecChecks.check(input)
    return 0
}
