import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time of a process tree from /proc (Linux): a process's user and system time plus that of
/// its live children and of the children it has reaped.
struct ProcessCPU {
    /// The root of the tree (the postmaster, or this process).
    let pid: Int32

    /// One process's /proc/<pid>/stat fields that matter here.
    struct Stat {
        /// The parent's pid.
        var parent: Int32
        /// The command name (between the parentheses).
        var command: String
        /// utime + stime + cutime + cstime, in clock ticks.
        var ticks: Int64
    }

    /// Reads /proc/<pid>/stat; nil when the process is gone or the file is not as expected.
    static func stat(_ pid: Int32) -> Stat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        let command = String(text[text.index(after: open)..<close])
        // After the command: state (field 3), ppid (4), …, utime (14), stime (15), cutime (16), cstime (17).
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let times = fields[11...14].compactMap { Int64($0) }
        guard times.count == 4 else { return nil }
        return Stat(parent: parent, command: command, ticks: times.reduce(0, +))
    }

    /// Every process's stat, by pid.
    static func all() -> [Int32: Stat] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var result: [Int32: Stat] = [:]
        for name in names {
            guard let pid = Int32(name), let stat = stat(pid) else { continue }
            result[pid] = stat
        }
        return result
    }

    /// The only PostgreSQL postmaster on the machine (a `postgres` process whose parent is not
    /// one); nil when there is none or more than one.
    static func onlyPostmaster() -> Int32? {
        let processes = all()
        let roots = processes.filter { _, stat in
            stat.command == "postgres" && processes[stat.parent]?.command != "postgres"
        }
        return roots.count == 1 ? roots.first?.key : nil
    }

    /// The tree's CPU time so far, in seconds; nil when the root is gone.
    func seconds() -> Double? {
        let processes = Self.all()
        guard let root = processes[pid] else { return nil }
        let children = processes.values.filter { $0.parent == pid }.map(\.ticks).reduce(0, +)
        return Double(root.ticks + children) / Double(Self.ticksPerSecond)
    }

    /// Clock ticks per second of the /proc times.
    static let ticksPerSecond: Int = {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? ticks : 100
    }()
}
