import CofferFuzzSupport
import Foundation

// fuzz-database-query: making a DatabaseQuery from any format and arguments, checked against
// SQLite (QueryCase.swift describes the input). `COFFER_FUZZ_WRITE_SEEDS=<dir>` writes the seed
// corpus instead.
FuzzSeeds.writeIfRequested(QuerySeeds.make)
runFuzzer { fuzzOneInput($0, $1) }
