import Ethereum
import Foundation
import Synchronization
import Testing

@testable import EthereumRPC

/// The JSON-RPC client against a stub node on loopback: how it reads every kind of answer.
@Suite struct RPCClientTests {
    static let hash = "0x" + String(repeating: "ab", count: 32)

    private func withNode<T>(
        _ reply: @escaping @Sendable (String, [Any]) -> StubNode.Reply, timeout: Duration = .seconds(30),
        _ body: (JSONRPCClient, StubNode) async throws -> T
    ) async throws -> T {
        let node = try StubNode(reply)
        defer { node.stop() }
        return try await body(JSONRPCClient(url: node.url, timeout: timeout), node)
    }

    private func rpcError(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            Issue.record("expected an RPCError, got \(error)")
            return nil
        }
    }

    @Test func quantitiesAreParsedStrictly() async throws {
        try await withNode({ method, _ in
            switch method {
            case "eth_chainId": .result("\"0x7a69\"")
            case "eth_blockNumber": .result("\"12\"")  // no 0x: garbage
            case "eth_gasPrice": .result("\"0x\"")
            case "eth_getBalance": .result("\"0x1" + String(repeating: "0", count: 32) + "\"")  // 2^128: does not fit
            default: .result("7")  // a JSON number, not a hex string
            }
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            #expect(try await client.chainID() == 31337)
            for call in [
                { _ = try await client.blockNumber() }, { _ = try await client.gasPrice() },
                { _ = try await client.balance(.zero) }, { _ = try await client.maxPriorityFeePerGas() },
            ] {
                guard case .malformed = await rpcError(call) else {
                    Issue.record("a malformed quantity was accepted")
                    continue
                }
            }
        }
    }

    @Test func serverErrorsCarryCodeMessageAndRevertReason() async throws {
        // Error(string) "not operator", ABI-encoded, as a node puts it in `data`.
        let reason = Hex.encode(ABI.selector("Error(string)") + ABI.encode([.string("not operator")]))
        try await withNode({ method, _ in
            switch method {
            case "eth_call": .error(code: 3, message: "execution reverted", data: "\"\(reason)\"")
            default: .error(code: -32601, message: "the method \(method) does not exist/is not available")
            }
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            let revert = await rpcError { _ = try await client.call(to: .zero, data: []) }
            #expect(revert == .server(code: 3, message: "execution reverted: not operator"))
            #expect(revert?.isRevert == true)
            let unknown = await rpcError { _ = try await client.maxPriorityFeePerGas() }
            #expect(
                unknown == .server(code: -32601, message: "the method eth_maxPriorityFeePerGas does not exist/is not available"))
            #expect(unknown?.isRevert == false)
        }
    }

    @Test func alreadyKnownIsSuccess() async throws {
        let raw: [UInt8] = [0x02, 0xc0]
        let hash = Keccak256.hash(raw)
        let answers: [StubNode.Reply] = [
            .error(code: -32000, message: "already known"),
            .error(code: -32010, message: "Known transaction: \(Hex.encode(hash, prefixed: false))"),
            .error(code: -32000, message: "transaction \(Hex.encode(hash)) is already in the pool"),
            .error(code: -32010, message: "AlreadyKnown"),
            .error(code: -32010, message: "Transaction with the same hash was already imported."),
            .result("\"\(Hex.encode(hash))\""),
        ]
        for answer in answers {
            try await withNode({ _, _ in answer }) { (client: JSONRPCClient, _: StubNode) async throws in
                #expect(try await client.sendRawTransaction(raw) == hash)
            }
        }
        // geth answers "nonce too low" for a transaction it has already mined: the node still
        // finds it by hash, so it is in.
        try await withNode({ method, _ in
            method == "eth_getTransactionByHash"
                ? .result(
                    "{\"hash\":\"\(Hex.encode(hash))\",\"from\":\"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf\",\"to\":null,\"nonce\":\"0x4\",\"blockNumber\":\"0x9\"}"
                )
                : .error(code: -32000, message: "nonce too low: next nonce 5, tx nonce 4")
        }) { (client: JSONRPCClient, node: StubNode) async throws in
            #expect(try await client.sendRawTransaction(raw) == hash)
            #expect(node.methods.withLock { $0 } == ["eth_sendRawTransaction", "eth_getTransactionByHash"])
        }
        // A real refusal stays an error (the node does not know the transaction); a different
        // hash is the node misbehaving.
        try await withNode({ method, _ in
            method == "eth_getTransactionByHash"
                ? .result("null") : .error(code: -32000, message: "nonce too low: next nonce 5, tx nonce 4")
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            #expect(
                await rpcError { _ = try await client.sendRawTransaction(raw) }
                    == .server(code: -32000, message: "nonce too low: next nonce 5, tx nonce 4"))
        }
        try await withNode({ _, _ in .result("\"\(Self.hash)\"") }) { (client: JSONRPCClient, _: StubNode) async throws in
            guard case .malformed = await rpcError({ _ = try await client.sendRawTransaction(raw) }) else {
                Issue.record("a wrong hash was accepted")
                return
            }
        }
    }

    @Test func receiptsAndLogs() async throws {
        let log = """
            {"address":"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf","topics":["\(Self.hash)","0x\(String(repeating: "00", count: 31))01"],
             "data":"0x\(String(repeating: "00", count: 31))64","blockNumber":"0x10","blockHash":"\(Self.hash)",
             "transactionHash":"\(Self.hash)","transactionIndex":"0x0","logIndex":"0x2","removed":false}
            """
        try await withNode({ method, params in
            switch method {
            case "eth_getTransactionReceipt" where (params.first as? String) == Self.hash:
                .result(
                    """
                    {"transactionHash":"\(Self.hash)","blockNumber":"0x10","blockHash":"\(Self.hash)","status":"0x0","gasUsed":"0x5208",
                     "effectiveGasPrice":"0x3b9aca07","from":"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf","to":null,
                     "contractAddress":null,"logs":[\(log)]}
                    """)
            case "eth_getTransactionReceipt": .result("null")
            case "eth_getLogs": .result("[\(log)]")
            default: .result("null")
            }
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            let receipt = try #require(try await client.receipt(bytes(Self.hash)))
            #expect(receipt.status == 0 && !receipt.succeeded)
            #expect(receipt.blockNumber == 16 && receipt.gasUsed == 21000 && receipt.effectiveGasPrice == 1_000_000_007)
            #expect(receipt.to == nil && receipt.from?.checksummed == "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")
            #expect(receipt.logs.count == 1)
            #expect(try await client.receipt([UInt8](repeating: 1, count: 32)) == nil)
            let logs = try await client.logs(address: .zero, topics: [bytes(Self.hash)], from: 1, to: 20)
            #expect(logs.count == 1)
            #expect(logs[0].topics.count == 2 && logs[0].logIndex == 2 && logs[0].blockNumber == 16 && !logs[0].removed)
            #expect(try ABI.decodeUInt64(logs[0].data) == 100)
            // No block there: a typed error, not a crash or a zero.
            guard case .server = await rpcError({ _ = try await client.block(.number(99)) }) else {
                Issue.record("a missing block was not reported")
                return
            }
        }
    }

    @Test func answersThatAreNotJSONRPC() async throws {
        try await withNode({ _, _ in .raw(status: 200, body: "<html>hello</html>") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            let error = await rpcError { _ = try await client.chainID() }
            guard case .malformed(let message) = error else {
                Issue.record("HTML accepted: \(String(describing: error))")
                return
            }
            #expect(message.contains("not JSON") && message.contains("check the URL"))
        }
        try await withNode({ _, _ in .raw(status: 502, body: "Bad Gateway") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            let error = await rpcError { _ = try await client.chainID() }
            guard case .transport(let message) = error else {
                Issue.record("HTTP 502 not a transport error: \(String(describing: error))")
                return
            }
            #expect(message.contains("HTTP 502"))
        }
        // A gateway refusing with its own JSON (no JSON-RPC error object): the HTTP status is what matters.
        try await withNode({ _, _ in .raw(status: 401, body: "{\"error\":\"invalid project id\"}") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            let error = await rpcError { _ = try await client.chainID() }
            guard case .transport(let message) = error else {
                Issue.record("HTTP 401 not a transport error: \(String(describing: error))")
                return
            }
            #expect(message.contains("HTTP 401") && message.contains("invalid project id"))
        }
        try await withNode({ _, _ in .raw(status: 503, body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x1\"}") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            guard case .transport = await rpcError({ _ = try await client.chainID() }) else {
                Issue.record("a result under HTTP 503 accepted")
                return
            }
        }
        try await withNode({ _, _ in .raw(status: 200, body: "{\"jsonrpc\":\"2.0\",\"id\":99999,\"result\":\"0x1\"}") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            guard case .malformed = await rpcError({ _ = try await client.chainID() }) else {
                Issue.record("another request's answer accepted")
                return
            }
        }
        try await withNode({ _, _ in .raw(status: 200, body: "{\"jsonrpc\":\"2.0\",\"id\":1}") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            guard case .malformed = await rpcError({ _ = try await client.chainID() }) else {
                Issue.record("an answer without result accepted")
                return
            }
        }
    }

    /// A JSON-RPC error whose code or id is a number no Int holds: malformed, not a trap.
    @Test func hugeNumbersInAnswersDoNotTrap() async throws {
        try await withNode({ _, _ in
            .raw(status: 200, body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1e300,\"message\":\"x\"}}")
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            guard case .malformed = await rpcError({ _ = try await client.chainID() }) else {
                Issue.record("a code of 1e300 was accepted")
                return
            }
        }
        try await withNode({ _, _ in .raw(status: 200, body: "{\"jsonrpc\":\"2.0\",\"id\":1e300,\"result\":\"0x1\"}") }) {
            (client: JSONRPCClient, _: StubNode) async throws in
            guard case .malformed = await rpcError({ _ = try await client.chainID() }) else {
                Issue.record("an id of 1e300 was accepted")
                return
            }
        }
    }

    /// Errors name the node by scheme, host and port only: a hosted node's API key (in the path,
    /// the query or the user part) must not reach the logs.
    @Test func errorsDoNotRepeatAnAPIKeyInTheURL() async throws {
        let node = try StubNode { _, _ in .raw(status: 403, body: "{\"error\":\"forbidden\"}") }
        defer { node.stop() }
        let url = URL(string: "http://user:secretpass@127.0.0.1:\(node.port)/v3/secretkey123?apikey=secretquery")!
        let error = await rpcError { _ = try await JSONRPCClient(url: url).chainID() }
        let text = "\(String(describing: error))"
        #expect(text.contains("HTTP 403") && text.contains("http://127.0.0.1:\(node.port)/…"))
        #expect(!text.contains("secret"))
        #expect(JSONRPCClient.redacted(URL(string: "https://node.example:8545")!) == "https://node.example:8545")
    }

    /// Nothing listens on the port: `.transport` naming the URL and what to check.
    @Test func unreachableNodeIsATransportError() async throws {
        let node = try StubNode { _, _ in .silent }
        let url = node.url
        node.stop()
        let error = await rpcError { _ = try await JSONRPCClient(url: url).chainID() }
        guard case .transport(let message) = error else {
            Issue.record("not a transport error: \(String(describing: error))")
            return
        }
        #expect(message.contains("http://127.0.0.1:\(node.port)"))
        #expect(message.contains("check the URL and that the node is running"))
    }

    /// A node that accepts the connection and never answers: the configured timeout ends the wait.
    @Test func silentNodeTimesOut() async throws {
        try await withNode({ _, _ in .silent }, timeout: .milliseconds(300)) { client, _ in
            let error = await rpcError { _ = try await client.chainID() }
            guard case .transport(let message) = error else {
                Issue.record("not a transport error: \(String(describing: error))")
                return
            }
            #expect(message.contains("timed out"))
        }
    }

    @Test func requestsCarryTheRightParameters() async throws {
        let seen = StubParams()
        try await withNode({ method, params in
            seen.record(method, params)
            return method == "eth_getTransactionCount" ? .result("\"0x5\"") : .result("\"0x\"")
        }) { (client: JSONRPCClient, _: StubNode) async throws in
            let address = try Address(hex: "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")
            #expect(try await client.transactionCount(address, .pending) == 5)
            #expect(try await client.call(to: address, data: [0x12, 0x34], block: .number(255)) == [])
        }
        let calls = seen.all
        #expect(calls[0] == "eth_getTransactionCount [\"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf\",\"pending\"]")
        #expect(calls[1] == "eth_call [{\"data\":\"0x1234\",\"to\":\"0x7e5f4552091a69125d5dfcb7b8c2659029395bdf\"},\"0xff\"]")
    }
}

/// What the stub node received, as "method params-JSON" lines.
final class StubParams: Sendable {
    private let lines = Mutex<[String]>([])
    func record(_ method: String, _ params: [Any]) {
        let json =
            (try? JSONSerialization.data(withJSONObject: params, options: [.sortedKeys, .withoutEscapingSlashes])).map {
                String(decoding: $0, as: UTF8.self)
            } ?? "?"
        lines.withLock { $0.append("\(method) \(json)") }
    }
    var all: [String] { lines.withLock { $0 } }
}
