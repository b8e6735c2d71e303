#!/usr/bin/env bash
# CI: a short libFuzzer run of every fuzz target (Fuzz/; targets, invariants and the long run are
# in RELIABILITY.md, "Fuzzing"). Each target starts from its committed seeds (Fuzz/corpus/<target>)
# and runs for COFFER_FUZZ_SECONDS (22 s by default: 88 s in all); a crash, a sanitizer report or a
# broken invariant fails the step and prints the input (base64) that caused it.
# Own scratch path (.build-fuzz, git-ignored); COFFER_FUZZ makes Package.swift declare the targets.
# lld links: gold crashes on the duplicate `main` that -sanitize=fuzzer brings in (SwiftPM's wins).
# New corpus entries and crash artifacts go to a temporary directory, never into the repository.
# The long run (RELIABILITY.md): COFFER_FUZZ_SECONDS=600 COFFER_FUZZ_KEEP_CORPUS=1 bash scripts/ci/fuzz.sh
# keeps the inputs it finds in Fuzz/corpus-out/<target> (git-ignored), where the next run resumes.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
seconds="${COFFER_FUZZ_SECONDS:-22}"
targets=(blob-decoder key-file database-query binary-codec)

export COFFER_FUZZ=1
for target in "${targets[@]}"; do
    swift build -c debug --scratch-path .build-fuzz --product "fuzz-$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld 2>&1 | { grep -v "Cannot export local symbol" || true; }
done

work="$(mktemp -d)"
# One line per new corpus entry is thousands of lines a run: CI keeps the rest (pulses, final
# stats, and everything a crash prints).
# libFuzzer and ASan report crashes themselves; Swift's backtracer would only get in their way.
export SWIFT_BACKTRACE=enable=no
for target in "${targets[@]}"; do
    echo "== fuzz-$target for ${seconds}s"
    corpus="$work/$target"
    if [ -n "${COFFER_FUZZ_KEEP_CORPUS:-}" ]; then corpus="$root/Fuzz/corpus-out/$target"; fi
    mkdir -p "$corpus"
    if ! (cd "$work" && "$root/.build-fuzz/debug/fuzz-$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$work/$target-" \
        "$corpus" "$root/Fuzz/corpus/$target") 2>&1 | { grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE) ' || true; }; then
        echo "fuzz-$target failed; the input is in $work (kept), reproduce with:" >&2
        echo "  $root/.build-fuzz/debug/fuzz-$target $work/$target-crash-…" >&2
        exit 1
    fi
done
rm -rf "$work"
