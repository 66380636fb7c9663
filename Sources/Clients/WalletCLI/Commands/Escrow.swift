import ArgumentParser
import Foundation
import OfflineNotes
import WalletCore
import WalletFlows
import WalletSync

#if canImport(QRImage)
import QRImage
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Money in and out through the issuer's escrow on an EVM network (issuers in escrow mode only;
// others answer escrow_not_configured). The wallet never signs blockchain transactions: deposits are
// made from the person's own Ethereum wallet (EIP-681 requests), payouts by the issuer.

struct Deposit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Deposit tokens on the blockchain into the account: the escrow, your account reference and the two steps (approve, then deposit) as EIP-681 requests, as text and QR codes.",
        discussion:
            "Run the two requests from an Ethereum wallet that holds the tokens. The account is credited once the deposit has the issuer's confirmations; then wallet purchase turns it into offline notes."
    )
    @OptionGroup var common: CommonOptions
    @Option(help: "Amount to deposit, e.g. 12.34 (default: the Ethereum wallet asks for it).") var amount: String?
    @Option(help: "Write the deposit request (step 2) as a QR code to this PNG file.") var qr: String?
    @Option(help: "Write the approve request (step 1) as a QR code to this PNG file.") var approveQr: String?

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let currency = try wallet.limits().currency
            // Checked before the issuer is contacted: a bad amount asks nothing of anyone.
            let value = try amount.map { try MoneyText.parse($0, currency: currency) }
            let plan = try await home.withLock {
                let instructions = try await home.resume(wallet).client.depositInstructions()
                do throws(EscrowDepositError) {
                    return try EscrowDepositPlan(instructions, currency: currency, amount: value)
                } catch {
                    throw CLIError("bad_escrow_instructions", error.description, exit: .server)
                }
            }
            var files: [String] = []
            for (path, uri) in [(approveQr, plan.approveURI), (qr, plan.depositURI)] {
                guard let path else { continue }
                try EscrowCodes.writePNG(uri, to: path)
                files.append(path)
            }
            let i = plan.instructions
            var human = plan.text
            if !files.isEmpty { human += "\nQR written to \(files.joined(separator: ", "))" }
            human += "\nOnce credited (wallet status shows the account), buy notes with: wallet purchase AMOUNT"
            out.result(
                [
                    "chainId": String(i.chainID), "escrow": i.escrow, "token": i.token, "accountRef": i.accountRef,
                    "decimals": i.decimals, "confirmations": i.confirmations, "currency": i.currency,
                    "amount": plan.amount ?? NSNull(), "approveUri": plan.approveURI, "depositUri": plan.depositURI,
                    "files": files,
                ],
                human: human)
            EscrowCodes.draw([("Step 1: approve", plan.approveURI), ("Step 2: deposit", plan.depositURI)], output: out)
        }
    }
}

struct Withdraw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Withdraw from the settled balance to an address on the blockchain: the issuer debits the account and pays the tokens out from its escrow.",
        discussion: """
            ADDRESS is 0x and 40 hex digits. A mixed-case address carries an EIP-55 checksum, which the issuer verifies: a mistyped one is refused before anything is debited.
            Retrying the same command after a crash or a lost answer withdraws once (the request's key is saved before it is sent).
            """)
    @OptionGroup var common: CommonOptions
    @Argument(help: "Amount, e.g. 12.34.") var amount: String
    @Option(help: "The address to pay on the blockchain (0x and 40 hex digits).") var to: String
    @Flag(help: "Wait until the payout is paid or refused on the blockchain, showing its progress.") var wait = false
    @Option(help: "With --wait: seconds to wait at most (1 to \(Int(OptionRange.maxWaitSeconds))).") var timeout: Double = 600

    func validate() throws {
        try OptionRange.check(timeout, "--timeout", 1...OptionRange.maxWaitSeconds)
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let currency = try wallet.limits().currency
            // Checked before the issuer is contacted: bad input sends nothing.
            let value = try MoneyText.parse(amount, currency: currency)
            let address = try EscrowCodes.address(to)
            let (session, result) = try await home.withLock {
                let session = try await home.resume(wallet)
                out.note("Withdrawing \(MoneyText.format(value, currency)) to \(address)…")
                return (session, try await session.withdraw(amount: value, to: address))
            }
            if let earlier = result.earlier {
                out.note("An earlier withdrawal whose answer was lost was finished first: \(EscrowCodes.line(earlier, currency))")
            }
            if result.resent {
                out.note("This withdrawal had been sent before (its answer was lost): it is the same one, debited once.")
            }
            var withdrawal = result.withdrawal
            if wait {
                // Only the issuer is asked from here on: other commands may use the wallet meanwhile.
                withdrawal = try await home.unlocked {
                    try await EscrowCodes.waitUntilFinal(withdrawal, client: session.client, timeout: timeout, output: out) {
                        // The access token ran out during a long wait: resume the login (under the lock).
                        try await home.withLock { try await home.resume(wallet).client }
                    }
                }
            }
            let settled = try? await session.client.account().balance
            var object = EscrowCodes.object(withdrawal)
            object["resent"] = result.resent
            object["currency"] = currency.code
            if let earlier = result.earlier { object["earlier"] = EscrowCodes.object(earlier) }
            if let settled { object["settled"] = settled }
            var human = EscrowCodes.text(withdrawal, currency)
            if let settled { human += "\nAccount now \(MoneyText.format(signed: settled, currency))." }
            if !withdrawal.status.isFinal { human += "\nFollow it with: wallet withdrawals \(withdrawal.id)" }
            if withdrawal.status == .refused {
                throw CLIError(
                    "withdrawal_refused",
                    "The blockchain refused withdrawal \(withdrawal.id) (\(withdrawal.reason ?? "no reason given")); \(MoneyText.format(withdrawal.amount, currency)) is back on the account.",
                    exit: .server)
            }
            out.result(object, human: human)
        }
    }
}

struct Withdrawals: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Withdrawals to blockchain addresses, newest first, with their status and payout transaction; or one in full with its ID."
    )
    @OptionGroup var common: CommonOptions
    @Argument(help: "A withdrawal's id (0x and 64 hex digits, as wallet withdraw printed it).") var id: String?
    @Option(help: "At most this many withdrawals (1 to 200).") var limit = 50

    func validate() throws {
        guard (1...200).contains(limit) else { throw ValidationError("--limit must be between 1 and 200.") }
    }

    func run() async throws {
        try await WalletCLI.run(common) { out in
            let home = common.home
            let wallet = try home.openWallet()
            let currency = try wallet.limits().currency
            if let id, !EscrowCodes.isWithdrawalID(id) {
                throw CLIError(
                    "invalid_withdrawal_id",
                    "'\(id)' is not a withdrawal id: 0x and 64 hex digits, as wallet withdraw printed it.", exit: .usage)
            }
            try await home.withLock {
                let session = try await home.resume(wallet)
                // A withdrawal whose answer was lost is finished first, so the list is complete.
                if let finished = try await session.finishPendingWithdrawal() {
                    out.note("An earlier withdrawal whose answer was lost was finished: \(EscrowCodes.line(finished, currency))")
                }
                if let id {
                    let withdrawal = try await session.client.withdrawal(id: id)
                    var object = EscrowCodes.object(withdrawal)
                    object["currency"] = currency.code
                    out.result(object, human: EscrowCodes.text(withdrawal, currency))
                } else {
                    let list = try await session.client.withdrawals(limit: limit)
                    out.result(
                        ["withdrawals": list.map(EscrowCodes.object), "currency": currency.code],
                        human: list.isEmpty
                            ? "No withdrawals yet. Withdraw with: wallet withdraw AMOUNT --to ADDRESS"
                            : (list.map { EscrowCodes.text($0, currency) } + ["Details: wallet withdrawals ID"]).joined(
                                separator: "\n\n"))
                }
            }
        }
    }
}

/// What the escrow commands share: address checks, withdrawal text and JSON, QR codes of
/// EIP-681 requests, and waiting for a payout.
enum EscrowCodes {
    /// The address typed, format-checked (the issuer verifies a mixed-case checksum).
    static func address(_ text: String) throws -> String {
        do throws(EVMAddressError) { return try AddressFormat.check(text) } catch {
            throw CLIError("invalid_address", "\(error.description) Nothing was sent.", exit: .usage)
        }
    }

    static func isWithdrawalID(_ text: String) -> Bool { AddressFormat.isHex(text, bytes: 32) }

    /// A withdrawal as JSON (amounts in minor units; absent values null).
    static func object(_ w: EscrowWithdrawal) -> [String: Any] {
        [
            "id": w.id, "amount": w.amount, "to": w.to, "status": w.status.rawValue, "txHash": w.txHash ?? NSNull(),
            "reason": w.reason ?? NSNull(), "createdAt": w.createdAt, "updatedAt": w.updatedAt,
        ]
    }

    /// One line: amount, address, status.
    static func line(_ w: EscrowWithdrawal, _ currency: Currency) -> String {
        "\(MoneyText.format(w.amount, currency)) to \(w.to): \(w.status.rawValue) (\(w.id))"
    }

    /// The withdrawal in full, for people.
    static func text(_ w: EscrowWithdrawal, _ currency: Currency) -> String {
        var lines = [
            "Withdrawal \(w.id)",
            "  \(MoneyText.format(w.amount, currency)) to \(w.to)",
            "  status   \(w.status.rawValue) — \(meaning(w.status))",
            "  created  \(Date(timeIntervalSince1970: TimeInterval(w.createdAt)))",
        ]
        if let tx = w.txHash { lines.append("  tx       \(tx)") }
        if let reason = w.reason { lines.append("  reason   \(reason)") }
        return lines.joined(separator: "\n")
    }

    static func meaning(_ status: EscrowWithdrawal.Status) -> String {
        switch status {
        case .pending: "debited from the account; the issuer sends the payout shortly"
        case .sent: "payout transaction sent; waiting for it to be mined"
        case .paid: "paid on the blockchain"
        case .refused: "the blockchain refused the payout; the amount is back on the account"
        }
    }

    /// Asks the issuer about `withdrawal` every second until it is paid or refused, noting each
    /// change on stderr. Past `timeout` seconds it stops with the withdrawal still under way
    /// (debited; the issuer keeps paying it out). An access token that expires meanwhile (they
    /// last 15 minutes, a wait up to an hour) is replaced through `renew`, once per expiry.
    static func waitUntilFinal(
        _ withdrawal: EscrowWithdrawal, client: IssuerClient, timeout: Double, output: Output,
        renew: () async throws -> IssuerClient
    ) async throws -> EscrowWithdrawal {
        var client = client
        var renewed = false
        var current = withdrawal
        output.note("  \(current.status.rawValue): \(meaning(current.status))")
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while !current.status.isFinal {
            guard ContinuousClock.now < deadline else {
                throw CLIError(
                    "withdrawal_not_final",
                    "Withdrawal \(current.id) is still \(current.status.rawValue) after \(Int(timeout)) s. It is debited and the issuer keeps paying it out: check it with wallet withdrawals \(current.id)",
                    exit: .failure)
            }
            try await Task.sleep(for: .seconds(1))
            let next: EscrowWithdrawal
            do {
                next = try await client.withdrawal(id: current.id)
                renewed = false
            } catch let error as IssuerClientError where error.status == 401 && !renewed {
                client = try await renew()
                renewed = true
                continue
            }
            if next.status != current.status || next.txHash != current.txHash {
                output.note("  \(next.status.rawValue): \(meaning(next.status))\(next.txHash.map { " (tx \($0))" } ?? "")")
            }
            current = next
        }
        return current
    }

    /// Writes `uri` as a QR code PNG (the same encoder and writer as the payment codes).
    static func writePNG(_ uri: String, to path: String) throws {
        #if canImport(QRImage)
        try QRSymbol(uri).writePNG(to: path)
        #else
        throw CLIError("unsupported", "Writing PNG files needs libqrencode (Linux build).", exit: .input)
        #endif
    }

    /// Draws each request as a QR code in the terminal under its heading (human output on a
    /// terminal only, as the payment codes).
    static func draw(_ codes: [(title: String, uri: String)], output: Output) {
        #if canImport(QRImage)
        guard !output.json, isatty(STDOUT_FILENO) == 1 else { return }
        for (title, uri) in codes {
            guard let symbol = try? QRSymbol(uri) else { continue }
            print("\(title)\n" + symbol.terminalText())
        }
        #endif
    }
}
