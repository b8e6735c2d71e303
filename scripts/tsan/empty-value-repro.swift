// Why `Locked` must not guard an empty value. Four threads take two `Locked`s, the outer one
// guarding `()` (or an `Int`), 20,000 times each. Build and run (Swift 6.3.1, Linux x86-64):
//
//   sed -e "s/package /public /" -e "/assert(MemoryLayout/d" Sources/Coffer/Utilities/Locked.swift > /tmp/Locked.swift
//   swiftc -sanitize=thread -parse-as-library /tmp/Locked.swift scripts/tsan/empty-value-repro.swift -o /tmp/empty
//   /tmp/empty empty   # Locked(()): "Swift access race" inside withLock, reading the object's start
//   /tmp/empty int     # Locked(0): clean
//
// The count always comes out exact. With an empty `Value`, the instrumented inout access to
// `value` is reported at the object's address, which every `withLock` call also reads (the
// generic class's metadata) before it locks, so TSan pairs an unlocked read with a locked write.
import Dispatch

@main
enum EmptyValueRepro {
    static func main() {
        let empty = CommandLine.arguments.dropFirst().first != "int"
        let outerEmpty = Locked(())
        let outerInt = Locked(0)
        let counter = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<20_000 {
                    if empty {
                        outerEmpty.withLock { _ in counter.withLock { $0 += 1 } }
                    } else {
                        outerInt.withLock { _ in counter.withLock { $0 += 1 } }
                    }
                }
            }
        }
        group.wait()
        print(counter.withLock { $0 })
    }
}
