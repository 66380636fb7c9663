import Foundation
import TestSupport
import Testing

/// `Spawn`, which the harnesses use instead of Foundation's `Process` (see its doc comment).
@Suite struct SpawnTests {
    @Test func statusOutputDirectoryAndEnvironmentAreTheChildsOwn() throws {
        let dir = try TemporaryDirectory("spawn")
        let run = try ProgramRun.run(
            "/bin/sh", ["-c", "echo \"$GREETING\"; pwd; echo oops >&2; exit 3"], environment: ["GREETING": "hello"], in: dir.path)
        #expect(run.status == 3)
        #expect(run.stdout == "hello\n" + URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path + "\n")
        #expect(run.stderr == "oops\n")
        // Killed by a signal: 128 + N, as a shell reports it.
        #expect(try ProgramRun.run("/bin/sh", ["-c", "kill -9 $$"], in: dir.path).status == 137)
        // A program that does not exist is an error, not a status.
        #expect(throws: (any Error).self) { try ProgramRun.run(dir.path + "/missing", [], in: dir.path) }
    }

    /// The child gets standard input, output and error only, however many descriptors this
    /// process holds; and holding ~1,500 of them (what crashed `Process.run()`) changes nothing.
    @Test func theChildInheritsNoOtherDescriptors() throws {
        let dir = try TemporaryDirectory("spawn-fds")
        let held = (0..<1_500).compactMap { _ in FileHandle(forReadingAtPath: "/dev/null") }
        defer { held.forEach { try? $0.close() } }
        let run = try ProgramRun.run("/bin/sh", ["-c", "ls /proc/$$/fd"], in: dir.path)
        #expect(run.status == 0)
        // 0, 1, 2 and the shell's own descriptor for the script, if any (below 10).
        let inherited = run.stdout.split(separator: "\n").compactMap { Int($0) }
        #expect(inherited.filter { $0 > 9 }.isEmpty, "inherited: \(inherited)")
        #expect(Set([0, 1, 2]).isSubset(of: Set(inherited)))
    }
}
