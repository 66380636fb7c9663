import Ethereum
import EthereumRPC
import Foundation

/// RLP (Sources/Issuer/Ethereum/RLP.swift): only the canonical encoding decodes, so whatever
/// decodes re-encodes to the input bytes.
enum RLPTarget {
    static let name = "rlp"

    static let target = FuzzTargets.Target(
        name: name, covers: "Ethereum: RLP.decode", run: run,
        seeds: { EthereumTransactionTarget.rawSeeds().map { Array($0.dropFirst()) } + extra })

    static let extra: [[UInt8]] = [
        RLP.list([
            .bytes([]), .uint(UInt64(1024)), .list([.string("dog"), .list([])]), .bytes([UInt8](repeating: 0x61, count: 60)),
        ]).encoded,
        RLP.bytes([0x7f]).encoded, RLP.bytes([0x80]).encoded,
    ]

    static func run(_ bytes: [UInt8]) {
        guard let item = try? RLP.decode(bytes) else { return }
        guard item.encoded == bytes else {
            fail(name, "RLP decodes but re-encodes differently: a non-canonical encoding was accepted")
        }
    }
}

/// Signed EIP-1559 transactions as the server reads them back from its store or a node
/// (`SignedTransaction(raw:)`): what decodes re-encodes to the input bytes, and recovering
/// the sender may only answer or throw `EthereumError`.
enum EthereumTransactionTarget {
    static let name = "eth-tx"

    static let target = FuzzTargets.Target(
        name: name, covers: "Ethereum: SignedTransaction(raw:), sender()", run: run, seeds: rawSeeds)

    static func run(_ bytes: [UInt8]) {
        guard let transaction = try? SignedTransaction(raw: bytes) else { return }
        guard transaction.raw == bytes else { fail(name, "a transaction decodes but re-encodes differently") }
        guard (try? SignedTransaction(raw: transaction.raw)) == transaction else {
            fail(name, "a transaction does not decode its own encoding")
        }
        _ = try? transaction.sender()
    }

    /// Two transactions from the project's tests (Tests/EthereumTests/TransactionTests.swift) and
    /// a contract creation signed here with a fixed key.
    static func rawSeeds() -> [[UInt8]] {
        var out = [
            "02f8798205392284773594008477359400830186a09409616c3d61b3331fc4109a9e41a8bdb7d9776609865af3107a400086616263646566c001a072e609158b88f19ed6e99d8651db59d219aeac08fc0f1fd6659ccf8da690fff2a07a83e6b119706262de1be32ca65cfa59ba4fc340bf47e2242a95aef3622c1a87",
            "02f87982076c2284773594008477359400830186a09409616c3d61b3331fc4109a9e41a8bdb7d9776609865af3107a400086616263646566c001a0875ffc9aeb11f777d2d7f46783a196ce62e5340009303dd91e89318a6ebd3443a05b27d718258adefe9300abd3b3578c38e67720ab4931466a02d859af582dfe60",
        ].compactMap(decodeHex)
        if let key = try? PrivateKey(bytes: [UInt8](repeating: 0x11, count: 32)) {
            let creation = EIP1559Transaction(
                chainID: 31337, nonce: 0, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2_000_000_000, gasLimit: 3_000_000,
                to: nil, value: 0, data: [0x60, 0x80, 0x60, 0x40, 0x52])
            if let signed = try? creation.signed(with: key) { out.append(signed.raw) }
        }
        return out
    }
}

/// JSON-RPC answers as `JSONRPCClient` parses them: the body into `JSON`, then its hex fields
/// with `Hex.decode` / `Hex.parseQuantity` and revert data with `ABI.decodeString`. Round trip:
/// a `JSON` value encodes and decodes back to itself; a quantity prints back to a quantity with
/// the same value; a DATA string prints back to the same bytes.
enum RPCJSONTarget {
    static let name = "eth-rpc-json"

    static let target = FuzzTargets.Target(
        name: name, covers: "EthereumRPC: JSON (Decodable), Hex.decode, Hex.parseQuantity, ABI.decodeString", run: run,
        seeds: seeds)

    static func run(_ bytes: [UInt8]) {
        guard let json = try? JSONDecoder().decode(JSON.self, from: Data(bytes)) else { return }
        let encoded: Data
        do { encoded = try JSONEncoder().encode(json) } catch { fail(name, "a decoded JSON value does not encode: \(error)") }
        guard let again = try? JSONDecoder().decode(JSON.self, from: encoded), again == json else {
            fail(name, "JSON does not decode its own encoding to an equal value")
        }
        _ = json.description
        visit(json, depth: 0)
    }

    static func visit(_ json: JSON, depth: Int) {
        guard depth < 64 else { return }
        switch json {
        case .string(let text): hexFields(text)
        case .array(let items): items.forEach { visit($0, depth: depth + 1) }
        case .object(let members): members.values.forEach { visit($0, depth: depth + 1) }
        default: break
        }
    }

    static func hexFields(_ text: String) {
        if let value = try? Hex.parseQuantity(text, as: UInt128.self) {
            guard (try? Hex.parseQuantity(Hex.quantity(value), as: UInt128.self)) == value else {
                fail(name, "a quantity does not print back")
            }
            if let small = try? Hex.parseQuantity(text, as: UInt64.self), UInt128(small) != value {
                fail(name, "a quantity reads differently by width")
            }
        }
        if let data = try? Hex.decode(text) {
            guard (try? Hex.decode(Hex.encode(data))) == data else { fail(name, "DATA does not print back") }
            if data.count > 4 { _ = try? ABI.decodeString(Array(data.dropFirst(4))) }
            _ = try? ABI.decodeBytes(data)
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let texts = [
            #"{"jsonrpc":"2.0","id":1,"result":"0x7a69"}"#,
            #"{"jsonrpc":"2.0","id":2,"result":{"number":"0x10","hash":"0x\#(String(repeating: "11", count: 32))","baseFeePerGas":"0x3b9aca00","timestamp":"0x6553f100"}}"#,
            #"{"jsonrpc":"2.0","id":3,"result":[{"address":"0x09616c3d61b3331fc4109a9e41a8bdb7d9776609","topics":["0x\#(String(repeating: "22", count: 32))"],"data":"0x\#(String(repeating: "00", count: 31))05","blockNumber":"0x11","blockHash":"0x\#(String(repeating: "33", count: 32))","transactionHash":"0x\#(String(repeating: "44", count: 32))","logIndex":"0x0","removed":false}]}"#,
            #"{"jsonrpc":"2.0","id":4,"error":{"code":3,"message":"execution reverted","data":"0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000b6e6f7420616c6c6f7765640000000000000000000000000000000000000000000"}}"#,
            #"{"jsonrpc":"2.0","id":5,"result":null}"#,
            #"[1.5,-2e10,true,"x",{"a":[]}]"#,
        ]
        return texts.map { Array($0.utf8) }
    }
}
