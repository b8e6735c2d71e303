// libFuzzer's documented entry point for programs that keep their own `main`
// (https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library). The fuzz targets call it
// from their `main.swift`: SwiftPM gives Swift executables a `main` of their own, so libFuzzer's
// cannot be used.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
