import Foundation

/// Stops the run with `message` when a property a fuzz target checks does not hold.
///
/// libFuzzer records the input that reached the abort as a crash artifact, so a broken invariant
/// is reported exactly like a memory error, with the input to reproduce it.
public func fuzzCheck(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz invariant broken at \(file):\(line): \(message())\n".utf8))
    abort()
}
