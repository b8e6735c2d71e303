// Nothing to compile: the target only exports CFuzzDriver.h; libFuzzer (linked by
// -sanitize=fuzzer) defines the function.
#include "CFuzzDriver.h"
