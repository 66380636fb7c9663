import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

// The escrow owner's actions: pause, unpause, the operator, the daily cap, ownership.

/// Options of every owner action.
struct OwnerOptions: ParsableArguments {
    @Option(name: .long, help: "The owner's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @Option(name: .long, help: "Seconds to wait for the receipt.") var timeout: Int = 120

    /// Sends `data` to the escrow as the owner, after checking the key IS the owner (the escrow
    /// would revert otherwise, after charging gas, with a less helpful message) and whatever
    /// else `check` knows the escrow would refuse.
    func send(
        _ data: [UInt8], action: String, node: Node, check: (EscrowView) async throws(EscrowToolError) -> Void = { _ in }
    ) async throws(EscrowToolError) -> (tx: [UInt8], block: UInt64, logs: [Log]) {
        let key = try loadKey(keyFile)
        let escrow = try EscrowView(address: parseAddress(self.escrow, option: "--escrow"), node: node)
        let owner = try await escrow.owner()
        guard owner == key.address else {
            throw .notOwner(key: key.address.checksummed, owner: owner.checksummed, action: action)
        }
        try await check(escrow)
        return try await sendToEscrow(data, from: key, escrow: escrow, action: action, timeout: timeout)
    }
}

/// Signs `data` to the escrow with `key`, sends it and waits for a successful receipt.
func sendToEscrow(
    _ data: [UInt8], from key: PrivateKey, escrow: EscrowView, action: String, timeout: Int
) async throws(EscrowToolError) -> (tx: [UInt8], block: UInt64, logs: [Log]) {
    let node = escrow.node
    let hash = try await node.send(
        from: key, to: escrow.address, data: data, action: action, nonce: node.nonce(of: key.address), fees: node.fees())
    let receipt = try await node.waitForSuccess(hash, action: action, timeout: timeout)
    return (hash, receipt.blockNumber, receipt.logs)
}

struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Owner: pause the escrow (deposits and payouts are refused until unpause).")
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let sent = try await owner.send(try Call.encode("pause()", []), action: "pause the escrow", node: options.node())
            output.result(
                ["escrow": owner.escrow, "paused": true, "tx": Hex.encode(sent.tx), "block": sent.block],
                human: "Paused the escrow: deposits and payouts are refused.\ntx \(Hex.encode(sent.tx)) (block \(sent.block))")
        }
    }
}

struct Unpause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Owner: lift the pause.")
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let sent = try await owner.send(try Call.encode("unpause()", []), action: "unpause the escrow", node: options.node())
            output.result(
                ["escrow": owner.escrow, "paused": false, "tx": Hex.encode(sent.tx), "block": sent.block],
                human: "Unpaused the escrow.\ntx \(Hex.encode(sent.tx)) (block \(sent.block))")
        }
    }
}

struct SetOperator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-operator",
        abstract:
            "Owner: replace the operator (the server's payout key), e.g. after it leaked. Restart the server with the new key.")
    @Argument(help: "The new operator's address (not the owner's).") var address: String
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let newOperator = try parseAddress(address, option: "ADDRESS")
            let sent = try await owner.send(
                try Call.encode("set_operator(address)", [.address(newOperator)]), action: "replace the operator",
                node: options.node())
            output.result(
                ["escrow": owner.escrow, "operator": newOperator.checksummed, "tx": Hex.encode(sent.tx), "block": sent.block],
                human: "The operator is now \(newOperator.checksummed).\ntx \(Hex.encode(sent.tx)) (block \(sent.block))")
        }
    }
}

struct SetDailyCap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-daily-cap",
        abstract: "Owner: set the most the operator may pay out per UTC day (with the token's decimals; 0 stops payouts).",
        discussion: """
            A cap no higher than the one in force applies at once and cancels a raise still waiting. A higher cap applies 24 hours after this transaction's block (the escrow's rule, so a stolen owner key cannot empty the escrow at once); until then the current cap stays, and `status` shows the raise and when it applies. A new raise replaces a waiting one and starts its 24 hours again.
            """)
    @Argument(help: "The new cap, with the token's decimals (for example 5000.00).") var amount: String
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let node = try options.node()
            let escrow = try EscrowView(address: parseAddress(owner.escrow, option: "--escrow"), node: node)
            let decimals = try await node.decimals(token: escrow.token())
            let units = try TokenAmount.parse(amount, decimals: decimals)
            // A raise still waiting before this call, which a cut (or another raise) replaces.
            let waiting = try await escrow.scheduledRaise()
            let sent = try await owner.send(
                try Call.encode("set_daily_cap(uint256)", [.uint256(units)]), action: "set the daily cap", node: node)
            // What the escrow did is in its event, not in what was asked: a raise waits a day.
            let change = try CapChange.from(logs: sent.logs, escrow: escrow.address)
            let text = { (word: [UInt8]) in TokenAmount.format(word: word, decimals: decimals) }
            var object: [String: Any] = ["escrow": escrow.address.checksummed, "tx": Hex.encode(sent.tx), "block": sent.block]
            let human: String
            switch change {
            case .applied(_, let cap):
                object.merge(
                    [
                        "scheduled": false, "cap": ABI.decimalString(cap), "capText": text(cap),
                        "dailyCap": ABI.decimalString(cap), "dailyCapText": text(cap),
                    ], uniquingKeysWith: { $1 })
                human =
                    "The daily cap is now \(text(cap))."
                    + (waiting.map { " The raise to \(text($0.cap)) that was waiting is cancelled." } ?? "")
                if let waiting { object["cancelledRaise"] = ABI.decimalString(waiting.cap) }
            case .scheduled(let current, let cap, let effectiveAt):
                let at = UTCTime.iso8601(effectiveAt)
                object.merge(
                    [
                        "scheduled": true, "cap": ABI.decimalString(cap), "capText": text(cap),
                        "effectiveAt": at, "effectiveAtTimestamp": effectiveAt,
                        "current": ABI.decimalString(current), "currentText": text(current),
                        "dailyCap": ABI.decimalString(current), "dailyCapText": text(current),
                    ], uniquingKeysWith: { $1 })
                human =
                    "The daily cap becomes \(text(cap)) at \(at); it stays \(text(current)) until then."
                    + (waiting.map { " This replaces the raise to \(text($0.cap)) that was waiting." } ?? "")
                if let waiting { object["replacedRaise"] = ABI.decimalString(waiting.cap) }
            }
            output.result(object, human: human + "\ntx \(Hex.encode(sent.tx)) (block \(sent.block))")
        }
    }
}

struct TransferOwnership: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer-ownership",
        abstract:
            "Owner: offer the escrow's ownership to ADDRESS, which takes it with accept-ownership (0x0…0 withdraws an offer).",
        discussion: """
            The owner role moves in two steps, so a mistyped address cannot take it: this only offers it, and the current owner stays in charge until the new key runs `wallet-escrow accept-ownership`. A new offer replaces a pending one. The escrow refuses offers to the operator (the roles stay apart), the escrow itself and its token (they cannot sign); this tool refuses them before sending anything.
            """)
    @Argument(help: "The new owner's address (0x0000000000000000000000000000000000000000 withdraws the pending offer).")
    var address: String
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let newOwner = try parseAddress(address, option: "ADDRESS", allowZero: true)
            let withdraw = newOwner == .zero
            let action = withdraw ? "withdraw the ownership offer" : "offer the escrow's ownership"
            var currentOwner = Address.zero
            let sent = try await owner.send(
                try Call.encode("transfer_ownership(address)", [.address(newOwner)]), action: action, node: options.node()
            ) { (escrow) async throws(EscrowToolError) in
                currentOwner = try await escrow.owner()
                if let reason = try await OwnershipRules.offerRefusal(
                    newOwner: newOwner, operator: escrow.operatorAddress(), escrow: escrow.address, token: escrow.token())
                {
                    throw .wouldRevert(action: action, reason: reason)
                }
            }
            let tx = "tx \(Hex.encode(sent.tx)) (block \(sent.block))"
            output.result(
                [
                    "escrow": owner.escrow, "owner": currentOwner.checksummed,
                    "pendingOwner": withdraw ? NSNull() as Any : newOwner.checksummed as Any,
                    "tx": Hex.encode(sent.tx), "block": sent.block,
                ],
                human: withdraw
                    ? "Withdrew the pending ownership offer; \(currentOwner.checksummed) stays the owner.\n\(tx)"
                    : """
                    Offered the escrow's ownership to \(newOwner.checksummed). \(currentOwner.checksummed) stays the owner until the new key accepts:
                      wallet-escrow accept-ownership --escrow \(owner.escrow) --key-file <the key file of \(newOwner.checksummed)>
                    \(tx)
                    """)
        }
    }
}

struct AcceptOwnership: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept-ownership",
        abstract: "Pending owner: take the escrow's ownership offered with transfer-ownership.",
        discussion: """
            Run with the key file of the address the owner offered the role to; the key is checked to be the pending owner before anything is sent. The escrow refuses it if that key has become the operator since the offer.
            """)
    @Option(name: .long, help: "The pending owner's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @Option(name: .long, help: "Seconds to wait for the receipt.") var timeout: Int = 120
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let key = try loadKey(keyFile)
            let escrow = try EscrowView(address: parseAddress(self.escrow, option: "--escrow"), node: options.node())
            let previous = try await escrow.owner()
            if let refusal = try await OwnershipRules.acceptRefusal(
                key: key.address, pending: escrow.pendingOwner(), operator: escrow.operatorAddress())
            {
                throw refusal
            }
            let sent = try await sendToEscrow(
                try Call.encode("accept_ownership()", []), from: key, escrow: escrow, action: "accept the escrow's ownership",
                timeout: timeout)
            output.result(
                [
                    "escrow": escrow.address.checksummed, "owner": key.address.checksummed, "previousOwner": previous.checksummed,
                    "tx": Hex.encode(sent.tx), "block": sent.block,
                ],
                human:
                    "\(key.address.checksummed) is now the escrow's owner (was \(previous.checksummed)).\ntx \(Hex.encode(sent.tx)) (block \(sent.block))"
            )
        }
    }
}
