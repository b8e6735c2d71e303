import Coffer
import Foundation

/// One run: the input as a key file, and as a slot label when it starts with 0x00.
///
/// Exported under libFuzzer's name too: the runtime's own `main` (linked in, but replaced by
/// SwiftPM's) refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = start.map { Data(bytes: $0, count: count) } ?? Data()
    KeyFileChecks.checkParse(input)
    if input.first == 0, input.count <= 2 * KeyFile.maximumLabelLength {
        LabelChecks.check(label: String(decoding: input.dropFirst(), as: UTF8.self))
    }
    return 0
}
