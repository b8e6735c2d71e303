import CofferFuzzSupport
import Foundation

// fuzz-blob-decoder: the blob header parser and the serializer chain's decoder (BlobCase.swift
// describes the input). `COFFER_FUZZ_WRITE_SEEDS=<dir>` writes the seed corpus instead.
FuzzSeeds.writeIfRequested(BlobSeeds.make)
runFuzzer { fuzzOneInput($0, $1) }
