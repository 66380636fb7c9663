import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

// Reading the escrow's state and an address's token balance.

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "The escrow's state: owner, pending owner, operator, paused, daily cap, a scheduled cap raise, paid today, token, its token balance, chain id and head."
    )

    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let node = try options.node()
            let escrow = try EscrowView(address: parseAddress(self.escrow, option: "--escrow"), node: node)
            let chainID = try await node.chainID()
            let head = try await node.head()
            let token = try await escrow.token()
            let decimals = try await node.decimals(token: token)
            let owner = try await escrow.owner()
            let operatorAddress = try await escrow.operatorAddress()
            let paused = try await escrow.paused()
            let pendingOwner = try await escrow.pendingOwner()
            let cap = try await node.read(escrow.address, "daily_cap()")
            let raise = try await escrow.scheduledRaise()
            let paidToday = try await node.read(escrow.address, "paid_today()")
            let balance = try await node.tokenBalance(token: token, of: escrow.address)
            let text = { (word: [UInt8]) in TokenAmount.format(word: word, decimals: decimals) }
            output.result(
                [
                    "escrow": escrow.address.checksummed, "chainId": String(chainID), "head": head,
                    "token": token.checksummed, "decimals": decimals, "owner": owner.checksummed,
                    "operator": operatorAddress.checksummed, "paused": paused,
                    "pendingOwner": pendingOwner == .zero ? NSNull() as Any : pendingOwner.checksummed as Any,
                    "dailyCap": ABI.decimalString(cap), "paidToday": ABI.decimalString(paidToday),
                    "nextDailyCap": raise.map { ABI.decimalString($0.cap) as Any } ?? NSNull(),
                    "nextDailyCapAt": raise.map { UTCTime.iso8601($0.at) as Any } ?? NSNull(),
                    "balance": ABI.decimalString(balance),
                ],
                human: """
                    escrow      \(escrow.address.checksummed)
                    chain ID    \(chainID), head block \(head)
                    token       \(token.checksummed) (\(decimals) decimals)
                    owner       \(owner.checksummed)
                    pending     \(pendingOwner == .zero ? "none" : "\(pendingOwner.checksummed) (offered the ownership; it takes it with accept-ownership)")
                    operator    \(operatorAddress.checksummed)
                    paused      \(paused ? "yes: deposits and payouts are refused" : "no")
                    daily cap   \(text(cap))
                    cap raise   \(raise.map { "to \(text($0.cap)) at \(UTCTime.iso8601($0.at)) (until then the cap above)" } ?? "none")
                    paid today  \(text(paidToday))
                    balance     \(text(balance)) (the escrow's token balance)
                    """)
        }
    }
}

struct Balance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "An address's balance of a token, with the token's decimals.")

    @Option(name: .long, help: "The token contract's address.") var token: String
    @Argument(help: "The address whose balance to show.") var address: String
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let node = try options.node()
            let token = try parseAddress(self.token, option: "--token")
            let holder = try parseAddress(address, option: "ADDRESS")
            let decimals = try await node.decimals(token: token)
            let balance = try await node.tokenBalance(token: token, of: holder)
            let text = TokenAmount.format(word: balance, decimals: decimals)
            output.result(
                [
                    "address": holder.checksummed, "token": token.checksummed, "decimals": decimals,
                    "balance": ABI.decimalString(balance), "balanceText": text,
                ],
                human: text)
        }
    }
}
