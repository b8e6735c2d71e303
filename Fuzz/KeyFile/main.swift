import CofferFuzzSupport
import Foundation

// fuzz-key-file: the key-file parser on any bytes; an input starting with 0x00 is also a slot
// label for the writer, so its JSON escaping is fuzzed through a round trip the checksum allows.
// `COFFER_FUZZ_WRITE_SEEDS=<dir>` writes the seed corpus instead.
FuzzSeeds.writeIfRequested(KeyFileSeeds.make)
runFuzzer { fuzzOneInput($0, $1) }
