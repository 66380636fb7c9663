#if os(Linux)
import CSpawn
import Glibc
#else
import Darwin
#endif

/// Child processes started with `posix_spawn` instead of Foundation's `Process`.
///
/// On Linux, `Process.run()` in Swift 6.3.1 finds the highest open descriptor by reading
/// `/proc/self/fd` with a struct copy of each entry's 256-byte name field. glibc's readdir
/// buffer holds 32 KB of entries; once the process has about 1,350 descriptors open, an entry
/// sits at the end of that buffer, the copy runs past it, and the whole test process dies with
/// SIGSEGV whenever the next page is unmapped (swift-corelibs-foundation PR #5472, fixed after
/// 6.3.1). The full test suite, with its hundreds of SQLite files and sockets open at once,
/// reaches ~1,500 descriptors in its busiest first minute.
/// Here the child closes every descriptor from 3 up itself (`closefrom`), so nothing has to
/// walk `/proc`. Linux only, as the test suite is; elsewhere `start` throws.
public enum Spawn {
    /// Starts `path` with `arguments` (argv[0] is `path`), standard input from /dev/null and
    /// standard output and error appended to the given files (nil: /dev/null). `environment`
    /// nil inherits this process's; `directory` nil keeps the current one. The child is the
    /// leader of a new process group, as with `Process`.
    public static func start(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        standardOutput: String? = nil, standardError: String? = nil
    ) throws -> pid_t {
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "stdin")
        try check(
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600),
            "stdout")
        try check(
            posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600),
            "stderr")
        try check(posix_spawn_file_actions_addclosefrom_np(&actions, 3), "closefrom")
        if let directory { try check(posix_spawn_file_actions_addchdir_np(&actions, directory), "chdir") }

        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "sigmask")
        try check(posix_spawnattr_setsigdefault(&attributes, &defaults), "sigdefault")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "pgroup")
        try check(
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)),
            "flags")

        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let env = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer { env?.forEach { free($0) } }
        var pid = pid_t()
        let result = (argv + [nil]).withUnsafeBufferPointer { argvBuffer -> Int32 in
            guard let argvBase = argvBuffer.baseAddress else { return EINVAL }
            guard let env else { return posix_spawn(&pid, path, &actions, &attributes, argvBase, environ) }
            return (env + [nil]).withUnsafeBufferPointer { envBuffer -> Int32 in
                guard let envBase = envBuffer.baseAddress else { return EINVAL }
                return posix_spawn(&pid, path, &actions, &attributes, argvBase, envBase)
            }
        }
        try check(result, "posix_spawn \(path)")
        return pid
        #else
        throw TestSupportError("Spawn runs on Linux only (the test suite's platform)")
        #endif
    }

    /// Waits for `pid` to end and returns its status as a shell reports it: the exit code, or
    /// 128 + N when killed by signal N.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        return decode(status)
    }

    /// The status of `pid` if it has ended (reaping it), nil while it runs.
    public static func poll(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == 0 { return nil }
        return result < 0 ? -1 : decode(status)
    }

    /// `waitpid`'s status word: the low 7 bits are the terminating signal (0: it exited), the
    /// next byte the exit code (WIFEXITED, WEXITSTATUS and WTERMSIG are C macros).
    static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else { throw TestSupportError("\(what) failed: \(String(cString: strerror(result)))") }
    }
}
