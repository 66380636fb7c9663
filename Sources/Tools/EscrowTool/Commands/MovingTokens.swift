import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

// Moving tokens: a deposit into the escrow for an account, and a plain transfer.

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
    @OptionGroup var options: EscrowOptions

    func validate() throws {
        guard (1...10_000).contains(count) else { throw ValidationError("--count must be between 1 and 10000.") }
        guard (1...86_400).contains(timeout) else { throw ValidationError("--timeout must be between 1 and 86400 seconds.") }
    }

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
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
            let allowance = try await node.read(
                token, "allowance(address,address)", [.address(key.address), .address(escrow.address)])
            if TokenAmount.units(word: allowance).map({ $0 < total }) ?? false {
                approveHash = try await node.send(
                    from: key, to: token,
                    data: try Call.encode("approve(address,uint256)", [.address(escrow.address), .uint256(total)]),
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
            if let approveHash {
                human.append("approve  \(Hex.encode(approveHash))" + (approveBlock.map { " (block \($0))" } ?? ""))
            }
            for (i, hash) in hashes.enumerated() {
                human.append(
                    "deposit  \(Hex.encode(hash))" + (i < blocks.count ? " (block \(blocks[i]))" : " (sent, not waited for)"))
            }
            human.append(
                "Deposited \(count == 1 ? "" : "\(count) × ")\(amountText) from \(key.address.checksummed) for \(Hex.encode(reference))"
                    + (blocks.isEmpty ? " (not yet mined)." : " in block \(blocks.max() ?? 0)."))
            output.result(object, human: human.joined(separator: "\n"))
        }
    }

    /// Gas for a deposit sent before its approval is mined: a deposit uses about 60,000.
    static let depositGasWithoutEstimate: UInt64 = 150_000

    func parseReference(_ text: String) throws(EscrowToolError) -> [UInt8] {
        guard text.utf8.count == 66, let bytes = try? Hex.decode(text), bytes.count == 32 else { throw .invalidReference(text) }
        return bytes
    }
}

struct Transfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "A plain ERC-20 transfer from a key file (tokens sent to the escrow this way credit no account: reconciliation shows them)."
    )

    @Option(name: .long, help: "The sender's key file (mode 0600).") var keyFile: String
    @Option(name: .long, help: "The token contract's address.") var token: String
    @Option(name: .long, help: "The recipient's address.") var to: String
    @Option(name: .long, help: "The amount, with the token's decimals (for example 12.34).") var amount: String
    @Option(name: .long, help: "Seconds to wait for the receipt.") var timeout: Int = 120
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
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
                human:
                    "Transferred \(text) from \(key.address.checksummed) to \(recipient.checksummed)\ntx \(Hex.encode(hash)) (block \(block))"
            )
        }
    }
}
