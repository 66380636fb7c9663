import ArgumentParser
import CrashPoints

/// Hidden tools for the project's own scripts (not for users; not in --help).
struct Debug: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tools for the project's test scripts.", shouldDisplay: false, subcommands: [CrashPointList.self])
}

/// `wallet debug crash-points [--json]`: the crash points compiled into this binary (both
/// sides: the wallet reaches the `wallet.` ones), which `scripts/crash-sweep` enumerates.
struct CrashPointList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-points", abstract: "List the named crash points (OW_CRASH_AT).")
    @Flag(help: "One JSON object on stdout.") var json = false

    func run() throws { print(CrashPoints.listing(json: json)) }
}
