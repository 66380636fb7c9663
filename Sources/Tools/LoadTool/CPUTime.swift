// CPU time spent by this process and by the PostgreSQL server, so a measured run can say what
// one redemption and one ceiling insert cost in CPU. On a machine where the load, the server
// and the database share two cores, CPU per operation is what sets the rates, and unlike a rate
// it barely moves when other work runs beside the measurement.
import Foundation

/// CPU time used so far (user + system, whole microseconds): by this process (with `children`, the
/// wallet-server processes it started), and by every process named `postgres` that is alive now
/// (the server's backends and background workers) together with the children they have reaped:
/// a backend that exits moves its CPU time into the postmaster's, so the sum never goes back,
/// even while the previous phase's backends exit during a measurement.
struct CPUTime: Sendable {
    /// Microseconds of CPU: this process (and the children asked for), and PostgreSQL.
    var ownMicros: Int64
    var postgresMicros: Int64
    var bothMicros: Int64 { ownMicros + postgresMicros }

    static func now(children: [Int32] = []) -> CPUTime {
        var cpu = now()
        cpu.ownMicros += children.reduce(0) { $0 + (micros(of: $1) ?? 0) }
        return cpu
    }

    /// Microseconds per operation: (both, this process and its children, PostgreSQL).
    func perOperation(_ operations: Int) -> (both: Double, own: Double, postgres: Double) {
        let n = Double(max(1, operations))
        return (Double(bothMicros) / n, Double(ownMicros) / n, Double(postgresMicros) / n)
    }

    static func now() -> CPUTime {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let own =
            (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000
            + Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec)
        return CPUTime(ownMicros: own, postgresMicros: postgresMicros())
    }

    static func - (a: CPUTime, b: CPUTime) -> CPUTime {
        CPUTime(ownMicros: a.ownMicros - b.ownMicros, postgresMicros: a.postgresMicros - b.postgresMicros)
    }

    /// utime + stime + cutime + cstime of the processes named `postgres`, from /proc (0 where
    /// there is none).
    private static func postgresMicros() -> Int64 {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        return entries.reduce(0) { sum, pid in
            guard let id = Int32(pid) else { return sum }
            return sum + (micros(of: id, named: "postgres", reapedChildren: true) ?? 0)
        }
    }

    /// utime + stime of process `pid` from /proc/PID/stat, if it runs (and is called `named`);
    /// with `reapedChildren`, plus cutime + cstime: the CPU of the children it has waited for.
    private static func micros(of pid: Int32, named: String? = nil, reapedChildren: Bool = false) -> Int64? {
        #if os(Linux)
        let ticks = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let bytes = [UInt8](stat)
        // "pid (comm) state ppid …": comm may hold spaces, so split after its last ')'.
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close
        else { return nil }
        if let named, String(decoding: bytes[(open + 1)..<close], as: UTF8.self) != named { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After the comm: state is field 3 of stat(5), utime 14, stime 15, cutime 16 and cstime 17,
        // so index 11 to 14 here.
        let used = reapedChildren ? 11...14 : 11...12
        guard fields.count > used.upperBound else { return nil }
        var total: UInt64 = 0
        for index in used {
            // cutime and cstime are signed in stat(5); never negative in practice.
            guard let value = Int64(String(decoding: fields[index], as: UTF8.self)), value >= 0 else { return nil }
            total += UInt64(value)
        }
        return Int64(clamping: total) * 1_000_000 / ticks
        #else
        return nil
        #endif
    }
}
