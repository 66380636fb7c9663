import ArgumentParser
import Ethereum
import EthereumRPC
import Foundation

// Keys: a new signing key and the address of one.

struct NewKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new-key", abstract: "Create a new private key in FILE (mode 0600; never overwrites) and print its address.")

    @Argument(help: "The key file to create.") var file: String
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
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
    @OptionGroup var options: EscrowOptions

    func run() async throws {
        try await EscrowTool.run(options) { (output) throws(EscrowToolError) in
            let key = try loadKey(keyFile)
            output.result(["address": key.address.checksummed], human: key.address.checksummed)
        }
    }
}
