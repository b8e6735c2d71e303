import Foundation

/// One run: make the query the input describes and check it against SQLite.
///
/// Exported under libFuzzer's name too: the runtime's own `main` (linked in, but replaced by
/// SwiftPM's) refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = start.map { Data(bytes: $0, count: count) } ?? Data()
    QueryChecks.check(QueryCase(input))
    return 0
}
