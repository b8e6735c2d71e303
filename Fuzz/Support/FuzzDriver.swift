import CFuzzDriver
import Foundation

/// What libFuzzer calls once per input: the bytes and their count; returns 0.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Hands the process to libFuzzer, which parses the command line (corpus directories, `-runs`,
/// `-max_total_time`, …) and calls `target` for each input; exits with libFuzzer's status.
public func runFuzzer(_ target: FuzzTarget) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}
