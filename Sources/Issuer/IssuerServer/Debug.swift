import ArgumentParser
import CrashPoints
import Foundation
import IssuerCore
import Logging

/// Hidden tools for the project's own scripts (not for operators; not in --help).
struct Debug: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tools for the project's test scripts.", shouldDisplay: false, subcommands: [CrashPointList.self, Books.self])
}

/// `wallet-server debug crash-points --json`: the crash points compiled into this binary.
struct CrashPointList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash-points", abstract: "List the named crash points (OW_CRASH_AT).")
    @Flag(help: "One JSON object on stdout.") var json = false

    func run() throws { print(CrashPoints.listing(json: json)) }
}

/// `wallet-server debug books --database … --keys …`: the issuer's own check of its books
/// (`Issuer.checkLedger`: every journal entry balances, every cached balance equals its
/// journal, the float equals the unredeemed value of unswept notes), the float, the fraud
/// cases and the accounts in debt, as one JSON object. Reads the database a running server
/// uses; exits 1 when the books do not balance.
struct Books: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the issuer's books (JSON).")
    @OptionGroup var common: CommonOptions

    func run() async throws {
        var logger = Logger(label: "wallet-server")
        logger.logLevel = .warning
        let issuer = try await common.openIssuer(logger: logger)
        let problems = try await issuer.checkLedger()
        let cases = try await issuer.fraudCases(limit: 1_000)
        let object: [String: Any] = [
            "balanced": problems.isEmpty,
            "problems": problems,
            "float": try await issuer.outstandingFloat(),
            "fraudCases": cases.map { c -> [String: Any] in
                [
                    "id": c.id, "cheaterAccount": c.cheaterAccount ?? -1, "status": c.status, "amount": c.amount,
                    "firstKind": c.firstKind,
                ]
            },
            "debtors": try await issuer.accountsInDebt().map { ["id": $0.id, "email": $0.email, "balance": $0.balance] },
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
        if !problems.isEmpty { throw ExitCode.failure }
    }
}
