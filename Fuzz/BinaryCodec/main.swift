import CofferFuzzSupport
import Foundation

// fuzz-binary-codec: the binary Codable decoder and its JSON rendering on any bytes.
// `COFFER_FUZZ_WRITE_SEEDS=<dir>` writes the seed corpus instead.
FuzzSeeds.writeIfRequested(BinaryCodecSeeds.make)
runFuzzer { fuzzOneInput($0, $1) }
