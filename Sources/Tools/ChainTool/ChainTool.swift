// `wallet-chain`: the escrow's operator and test tool — keys, the escrow's state, token
// balances, the owner's actions, and a deposit or transfer from a key file (docs/server.md).
import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

@main
struct WalletChain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet-chain",
        abstract: "Operate and test the wallet's escrow on an Ethereum-compatible chain.",
        discussion: """
            Every command that talks to the chain takes --rpc URL (or env WALLET_CHAIN_RPC); every command takes --json (one JSON object on stdout; token amounts in it are integer strings of token units, so any uint256 is exact).
            Key files hold 64 hex digits and a newline and must have mode 0600.
            Amounts are written with the token's decimals (12.34 for a 2-decimal token), never rounded.
            Transactions are EIP-1559: priority fee from eth_maxPriorityFeePerGas (1 gwei if the node has none), max fee 2 × base fee + priority, gas limit eth_estimateGas × 1.2.

            Exit status:
              0  ok
              1  unexpected failure
              2  usage (bad option, amount, address, reference, no --rpc)
              3  refused (a revert, not the owner or pending owner, paused, too little balance)
              4  node unreachable or a nonsensical answer
              5  sent but not mined within --timeout
              9  key file unreadable, insecure, or already existing
            """,
        subcommands: [
            NewKey.self, AddressOf.self, Status.self, Balance.self, Deposit.self, Transfer.self,
            Pause.self, Unpause.self, SetOperator.self, SetDailyCap.self, TransferOwnership.self, AcceptOwnership.self,
        ]
    )

    /// argument-parser's `main()`, but its usage errors exit with the documented status 2 (not
    /// 64) and print the JSON error object when --json was given.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let output = Output(json: arguments.contains("--json"))
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exit(withError: code)
        } catch {
            switch exitCode(for: error) {
            case .success:
                exit(withError: error)
            case .validationFailure:
                if output.json {
                    print(Output.encode(["ok": false, "error": ["code": "usage", "message": message(for: error), "exit": Int(Exit.usage.rawValue)]]))
                } else {
                    FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                }
                exit(withError: ExitCode(Exit.usage.rawValue))
            default:
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(withError: ExitCode(Exit.failure.rawValue))
            }
        }
    }
}

// MARK: - Keys

struct NewKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-key", abstract: "Create a new private key in FILE (mode 0600; never overwrites) and print its address.")

    @Argument(help: "The key file to create.") var file: String
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let key = try KeyFile.create(file)
            output.result(
                ["file": file, "address": key.address.checksummed],
                human: "Created \(file) (mode 0600)\naddress \(key.address.checksummed)")
        }
    }
}

struct AddressOf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "address", abstract: "Print the address of a key file.")

    @Option(name: .long, help: "The key file (mode 0600).") var keyFile: String
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let key = try loadKey(keyFile)
            output.result(["address": key.address.checksummed], human: key.address.checksummed)
        }
    }
}

// MARK: - Reading

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The escrow's state: owner, pending owner, operator, paused, daily cap, a scheduled cap raise, paid today, token, its token balance, chain id and head.")

    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
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
                    chain       \(chainID), head block \(head)
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
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
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

// MARK: - Moving tokens

struct Deposit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deposit tokens from a key file into the escrow for an account reference (test/dev: approve, then deposit).",
        discussion: """
            Reads the token and its decimals from the escrow, approves the escrow for the amount (skipped when the allowance already covers it), then calls deposit(amount, ref) and waits for both receipts. The reference is the one `wallet deposit` shows. With --count N it makes N separate deposits of AMOUNT each (one approval for all), sent back to back.
            """)

    @Option(name: .long, help: "The depositor's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @Option(name: .long, help: "The account reference: 0x and 64 hex digits (from `wallet deposit`).") var ref: String
    @Option(name: .long, help: "The amount, with the token's decimals (for example 12.34).") var amount: String
    @Option(name: .long, help: "Make this many deposits of AMOUNT (a burst for measurements).") var count: Int = 1
    @Flag(name: .long, help: "Print the transaction hashes once sent, without waiting for their receipts.") var noWait = false
    @Option(name: .long, help: "Seconds to wait for each receipt.") var timeout: Int = 120
    @OptionGroup var options: ChainOptions

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000.") }
        guard (1...86_400).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 86400 seconds.") }
    }

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let node = try options.node()
            let key = try loadKey(keyFile)
            let escrow = try EscrowView(address: parseAddress(self.escrow, option: "--escrow"), node: node)
            let reference = try parseReference(ref)
            let token = try await escrow.token()
            let decimals = try await node.decimals(token: token)
            let units = try TokenAmount.parse(amount, decimals: decimals)
            guard units > 0 else { throw .zeroAmount }
            let (total, overflow) = units.multipliedReportingOverflow(by: UInt128(count))
            guard !overflow else { throw .amountTooLarge("\(count) × \(amount)") }
            // Checked before spending gas, so the usual mistakes read as what they are.
            if try await escrow.paused() { throw .paused(escrow.address.checksummed) }
            let balance = try await node.tokenBalance(token: token, of: key.address)
            if TokenAmount.units(word: balance).map({ $0 < total }) ?? false {
                throw .insufficientBalance(
                    address: key.address.checksummed, has: TokenAmount.format(word: balance, decimals: decimals),
                    needs: TokenAmount.format(total, decimals: decimals))
            }
            var nonce = try await node.nonce(of: key.address)
            let fees = try await node.fees()
            var approveHash: [UInt8]?
            let allowance = try await node.read(token, "allowance(address,address)", [.address(key.address), .address(escrow.address)])
            if TokenAmount.units(word: allowance).map({ $0 < total }) ?? false {
                approveHash = try await node.send(
                    from: key, to: token, data: try Call.encode("approve(address,uint256)", [.address(escrow.address), .uint256(total)]),
                    action: "approve the escrow on the token", nonce: nonce, fees: fees)
                nonce += 1
            }
            // The deposits' gas cannot be estimated before the approval is mined (they would revert
            // for want of allowance), so with an approval pending they wait for it unless
            // --no-wait, where they get a fixed limit that covers a deposit with room to spare.
            var approveBlock: UInt64?
            if let hash = approveHash, !noWait {
                approveBlock = try await node.waitForReceipt(hash, action: "approve the escrow on the token", timeout: timeout)
            }
            let depositData = try Call.encode("deposit(uint256,bytes32)", [.uint256(units), .bytes32(reference)])
            var hashes: [[UInt8]] = []
            for _ in 0..<count {
                let hash = try await node.send(
                    from: key, to: escrow.address, data: depositData, action: "deposit into the escrow", nonce: nonce, fees: fees,
                    gasLimit: approveHash != nil && noWait ? Self.depositGasWithoutEstimate : nil)
                nonce += 1
                hashes.append(hash)
            }
            var blocks: [UInt64] = []
            if !noWait {
                for hash in hashes {
                    blocks.append(try await node.waitForReceipt(hash, action: "deposit into the escrow", timeout: timeout))
                }
            }
            let amountText = TokenAmount.format(units, decimals: decimals)
            var object: [String: Any] = [
                "from": key.address.checksummed, "escrow": escrow.address.checksummed, "token": token.checksummed,
                "ref": Hex.encode(reference), "amount": String(units), "amountText": amountText, "count": count,
                "depositTxs": hashes.map { Hex.encode($0) },
            ]
            if let approveHash { object["approveTx"] = Hex.encode(approveHash) }
            if let approveBlock { object["approveBlock"] = approveBlock }
            if let last = hashes.last { object["depositTx"] = Hex.encode(last) }
            if !blocks.isEmpty {
                object["depositBlocks"] = blocks
                object["block"] = blocks.max() ?? 0
            }
            var human: [String] = []
            if let approveHash { human.append("approve  \(Hex.encode(approveHash))" + (approveBlock.map { " (block \($0))" } ?? "")) }
            for (i, hash) in hashes.enumerated() {
                human.append("deposit  \(Hex.encode(hash))" + (i < blocks.count ? " (block \(blocks[i]))" : " (sent, not waited for)"))
            }
            human.append(
                "Deposited \(count == 1 ? "" : "\(count) × ")\(amountText) from \(key.address.checksummed) for \(Hex.encode(reference))"
                    + (blocks.isEmpty ? " (not yet mined)." : " in block \(blocks.max() ?? 0)."))
            output.result(object, human: human.joined(separator: "\n"))
        }
    }

    /// Gas for a deposit sent before its approval is mined: a deposit uses about 60,000.
    static let depositGasWithoutEstimate: UInt64 = 150_000

    func parseReference(_ text: String) throws(ChainToolError) -> [UInt8] {
        guard text.utf8.count == 66, let bytes = try? Hex.decode(text), bytes.count == 32 else { throw .invalidReference(text) }
        return bytes
    }
}

struct Transfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A plain ERC-20 transfer from a key file (tokens sent to the escrow this way credit no account: reconciliation shows them).")

    @Option(name: .long, help: "The sender's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The token contract's address.") var token: String
    @Option(name: .long, help: "The recipient's address.") var to: String
    @Option(name: .long, help: "The amount, with the token's decimals (for example 12.34).") var amount: String
    @Option(name: .long, help: "Seconds to wait for the receipt.") var timeout: Int = 120
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let node = try options.node()
            let key = try loadKey(keyFile)
            let token = try parseAddress(self.token, option: "--token")
            let recipient = try parseAddress(to, option: "--to")
            let decimals = try await node.decimals(token: token)
            let units = try TokenAmount.parse(amount, decimals: decimals)
            guard units > 0 else { throw .zeroAmount }
            let balance = try await node.tokenBalance(token: token, of: key.address)
            if TokenAmount.units(word: balance).map({ $0 < units }) ?? false {
                throw .insufficientBalance(
                    address: key.address.checksummed, has: TokenAmount.format(word: balance, decimals: decimals),
                    needs: TokenAmount.format(units, decimals: decimals))
            }
            let action = "transfer tokens"
            let hash = try await node.send(
                from: key, to: token, data: try Call.encode("transfer(address,uint256)", [.address(recipient), .uint256(units)]),
                action: action, nonce: node.nonce(of: key.address), fees: node.fees())
            let block = try await node.waitForReceipt(hash, action: action, timeout: timeout)
            let text = TokenAmount.format(units, decimals: decimals)
            output.result(
                [
                    "from": key.address.checksummed, "to": recipient.checksummed, "token": token.checksummed,
                    "amount": String(units), "amountText": text, "tx": Hex.encode(hash), "block": block,
                ],
                human: "Transferred \(text) from \(key.address.checksummed) to \(recipient.checksummed)\ntx \(Hex.encode(hash)) (block \(block))")
        }
    }
}

// MARK: - The owner's actions

/// Options of every owner action.
struct OwnerOptions: ParsableArguments {
    @Option(name: .long, help: "The owner's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The escrow contract's address.") var escrow: String
    @Option(name: .long, help: "Seconds to wait for the receipt.") var timeout: Int = 120

    /// Sends `data` to the escrow as the owner, after checking the key IS the owner (the escrow
    /// would revert otherwise, after charging gas, with a less helpful message) and whatever
    /// else `check` knows the escrow would refuse.
    func send(
        _ data: [UInt8], action: String, node: Node, check: (EscrowView) async throws(ChainToolError) -> Void = { _ in }
    ) async throws(ChainToolError) -> (tx: [UInt8], block: UInt64, logs: [Log]) {
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
) async throws(ChainToolError) -> (tx: [UInt8], block: UInt64, logs: [Log]) {
    let node = escrow.node
    let hash = try await node.send(
        from: key, to: escrow.address, data: data, action: action, nonce: node.nonce(of: key.address), fees: node.fees())
    let receipt = try await node.waitForSuccess(hash, action: action, timeout: timeout)
    return (hash, receipt.blockNumber, receipt.logs)
}

struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Owner: pause the escrow (deposits and payouts are refused until unpause).")
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
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
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
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
        abstract: "Owner: replace the operator (the server's payout key), e.g. after it leaked. Restart the server with the new key.")
    @Argument(help: "The new operator's address (not the owner's).") var address: String
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let newOperator = try parseAddress(address, option: "ADDRESS")
            let sent = try await owner.send(
                try Call.encode("set_operator(address)", [.address(newOperator)]), action: "replace the operator", node: options.node())
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
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let node = try options.node()
            let escrow = try EscrowView(address: parseAddress(owner.escrow, option: "--escrow"), node: node)
            let decimals = try await node.decimals(token: escrow.token())
            let units = try TokenAmount.parse(amount, decimals: decimals)
            // A raise still waiting before this call, which a cut (or another raise) replaces.
            let waiting = try await escrow.scheduledRaise()
            let sent = try await owner.send(try Call.encode("set_daily_cap(uint256)", [.uint256(units)]), action: "set the daily cap", node: node)
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
                human = "The daily cap is now \(text(cap))." + (waiting.map { " The raise to \(text($0.cap)) that was waiting is cancelled." } ?? "")
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
                human = "The daily cap becomes \(text(cap)) at \(at); it stays \(text(current)) until then."
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
        abstract: "Owner: offer the escrow's ownership to ADDRESS, which takes it with accept-ownership (0x0…0 withdraws an offer).",
        discussion: """
            The owner role moves in two steps, so a mistyped address cannot take it: this only offers it, and the current owner stays in charge until the new key runs `wallet-chain accept-ownership`. A new offer replaces a pending one. The escrow refuses offers to the operator (the roles stay apart), the escrow itself and its token (they cannot sign); this tool refuses them before sending anything.
            """)
    @Argument(help: "The new owner's address (0x0000000000000000000000000000000000000000 withdraws the pending offer).") var address: String
    @OptionGroup var owner: OwnerOptions
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let newOwner = try parseAddress(address, option: "ADDRESS", allowZero: true)
            let withdraw = newOwner == .zero
            let action = withdraw ? "withdraw the ownership offer" : "offer the escrow's ownership"
            var currentOwner = Address.zero
            let sent = try await owner.send(
                try Call.encode("transfer_ownership(address)", [.address(newOwner)]), action: action, node: options.node()
            ) { (escrow) async throws(ChainToolError) in
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
                      wallet-chain accept-ownership --escrow \(owner.escrow) --key-file <the key file of \(newOwner.checksummed)>
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
    @OptionGroup var options: ChainOptions

    func run() async throws {
        try await ChainTool.run(options) { (output) throws(ChainToolError) in
            let key = try loadKey(keyFile)
            let escrow = try EscrowView(address: parseAddress(self.escrow, option: "--escrow"), node: options.node())
            let previous = try await escrow.owner()
            if let refusal = try await OwnershipRules.acceptRefusal(
                key: key.address, pending: escrow.pendingOwner(), operator: escrow.operatorAddress())
            {
                throw refusal
            }
            let sent = try await sendToEscrow(
                try Call.encode("accept_ownership()", []), from: key, escrow: escrow, action: "accept the escrow's ownership", timeout: timeout)
            output.result(
                [
                    "escrow": escrow.address.checksummed, "owner": key.address.checksummed, "previousOwner": previous.checksummed,
                    "tx": Hex.encode(sent.tx), "block": sent.block,
                ],
                human: "\(key.address.checksummed) is now the escrow's owner (was \(previous.checksummed)).\ntx \(Hex.encode(sent.tx)) (block \(sent.block))")
        }
    }
}
