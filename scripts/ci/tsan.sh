#!/usr/bin/env bash
# CI: the tests that share databases, connections and locks between threads, under
# ThreadSanitizer. Any TSan report fails the step: halt_on_error stops the process at the first
# report, and the output is checked as well. The crash tests stay out: their children run several
# times slower under TSan, so the kill schedule stops matching what the tests expect (the rotation
# test can see no rotation complete); they run in the normal `swift test`.
# Own scratch path (.build-tsan, git-ignored). About 4 minutes on 2 cores from a clean checkout,
# nearly all of it building the dependencies and the package with TSan; the tests take ~10 s.
# Why Coffer locks with its own `Locked` rather than `Mutex`: RELIABILITY.md, "ThreadSanitizer".
set -euo pipefail
cd "$(dirname "$0")/../.."

suites='CofferReliabilityTests\.Concurrency'
suites+='|CofferTests\.(ConnectionPoolTests|ConnectionProxyTests|ProxyProcessTests|PreferencesTests'
suites+='|NotificationTests|AsyncTransactionTests|CacheCoherenceTests|SnapshotTests|SnapshotGateTests|LongLivedReadTests'
suites+='|HandlePoolTests|MisuseTests|NonceSourceTests|KeyringTests|KeyRotationTests|BackupTests|PartialFileTests'
suites+='|DatabaseCloseTests|UseAfterCloseTests|MemoryTableConcurrencyTests)'

export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

swift build --build-tests --sanitize=thread --scratch-path .build-tsan
swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "$suites" 2>&1 | tee "$log"
if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "ThreadSanitizer reported a problem (see above)" >&2
    exit 1
fi
