import Ethereum
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client for any standard Ethereum JSON-RPC endpoint over HTTP(S) (Foundation's URLSession;
/// no node-specific methods). Every call throws `RPCError`: `.server` when the node answered
/// with an error, `.transport` when it could not be reached, `.malformed` when the answer was
/// not JSON-RPC. Safe to share between tasks.
public final class JSONRPCClient: Sendable {
    /// The endpoint.
    public let url: URL
    /// How long one request may take before it fails with `.transport`.
    public let timeout: Duration
    private let session: URLSession
    private let nextID = Atomic<Int>(1)

    /// A client for the node at `url`. Nothing is sent until the first call.
    public init(url: URL, timeout: Duration = .seconds(30)) {
        self.url = url
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Self.seconds(timeout)
        configuration.timeoutIntervalForResource = Self.seconds(timeout)
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// The URL as errors show it: scheme, host and port only. Hosted nodes put an API key in
    /// the path or the user part (https://mainnet.example/v3/KEY), and errors end up in logs.
    public var endpoint: String { Self.redacted(url) }

    static func redacted(_ url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return "the configured URL" }
        let port = url.port.map { ":\($0)" } ?? ""
        let rest = url.path.isEmpty || url.path == "/" ? (url.query == nil ? "" : "/…") : "/…"
        return "\(scheme)://\(host)\(port)\(rest)"
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    private struct Request: Encodable {
        let jsonrpc = "2.0"
        let id: Int
        let method: String
        let params: [JSON]
    }

    /// Sends one JSON-RPC request and returns its `result` (any method, including a node's test
    /// controls such as evm_mine).
    public func request(method: String, params: [JSON] = []) async throws(RPCError) -> JSON {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        var request = URLRequest(url: url, timeoutInterval: Self.seconds(timeout))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(Request(id: id, method: method, params: params))
        } catch {
            throw .malformed("cannot encode the \(method) request: \(error)")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport(
                "\(method): cannot reach the Ethereum node at \(endpoint) (\(Self.describe(error))); check the URL and that the node is running"
            )
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        let answer: JSON
        do {
            answer = try JSONDecoder().decode(JSON.self, from: data)
        } catch {
            if !(200..<300).contains(status) {
                throw .transport(
                    "\(method): the server at \(endpoint) answered HTTP \(status) without a JSON-RPC body; check the URL names an Ethereum JSON-RPC endpoint"
                )
            }
            throw .malformed(
                "\(method): the answer from \(endpoint) is not JSON (\(Self.preview(data))); check the URL names an Ethereum JSON-RPC endpoint"
            )
        }
        guard case .object = answer else {
            throw .malformed("\(method): the answer from \(endpoint) is not a JSON-RPC response: \(answer)")
        }
        if let error = answer["error"], !error.isNull {
            // Int(exactly:): a hostile or broken node's 1e300 must not trap.
            if case .number(let number)? = error["code"], let code = Int(exactly: number),
                let message = error["message"]?.stringValue
            {
                throw .server(code: code, message: Self.withRevertReason(message, data: error["data"]))
            }
            if !(200..<300).contains(status) {
                // A gateway's or proxy's own refusal (401, 403, 429 …), not the node's.
                throw .transport(
                    "\(method): the server at \(endpoint) answered HTTP \(status): \(error); check the URL (and any API key in it)"
                )
            }
            throw .malformed("\(method): the node at \(endpoint) sent an error without code and message: \(error)")
        }
        if !(200..<300).contains(status) {
            throw .transport(
                "\(method): the server at \(endpoint) answered HTTP \(status) without a JSON-RPC error (\(Self.preview(data))); check the URL names an Ethereum JSON-RPC endpoint"
            )
        }
        if case .number(let answerID)? = answer["id"], Int(exactly: answerID) != id {
            throw .malformed("\(method): the answer from \(endpoint) is for request \(answerID), not \(id)")
        }
        guard let result = answer["result"] else {
            throw .malformed("\(method): the answer from \(endpoint) has neither result nor error: \(answer)")
        }
        return result
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError {
            switch error.code {
            case .timedOut: return "timed out"
            case .cannotConnectToHost: return "connection refused"
            case .cannotFindHost: return "unknown host"
            default: return error.localizedDescription
            }
        }
        return "\(error)"
    }

    private static func preview(_ data: Data) -> String {
        let text = String(decoding: data.prefix(120), as: UTF8.self)
        return data.isEmpty ? "an empty body" : "\"\(text)\(data.count > 120 ? "..." : "")\""
    }

    /// A revert's reason: some nodes say only "execution reverted" and put the ABI-encoded
    /// `Error(string)` in `data`; it is decoded into the message so callers see why.
    static func withRevertReason(_ message: String, data: JSON?) -> String {
        guard let text = data?.stringValue ?? data?["data"]?.stringValue,
            let bytes = try? Hex.decode(text), bytes.count > 4,
            Array(bytes.prefix(4)) == ABI.selector("Error(string)"),
            let reason = try? ABI.decodeString(Array(bytes.dropFirst(4)))
        else { return message }
        return message.contains(reason) ? message : "\(message): \(reason)"
    }

    // MARK: Typed calls

    /// eth_chainId.
    public func chainID() async throws(RPCError) -> UInt64 {
        try Self.quantity(try await request(method: "eth_chainId"), "eth_chainId")
    }

    /// eth_blockNumber: the head.
    public func blockNumber() async throws(RPCError) -> UInt64 {
        try Self.quantity(try await request(method: "eth_blockNumber"), "eth_blockNumber")
    }

    /// eth_getBlockByNumber (without transactions). A block the node does not have is `.server`
    /// code -32001 ("no block …"), as a missing resource is in EIP-1474.
    public func block(_ tag: BlockTag) async throws(RPCError) -> Block {
        let method = "eth_getBlockByNumber"
        let answer = try await request(method: method, params: [tag.json, false])
        if answer.isNull { throw .server(code: -32001, message: "no block \(tag) on this node yet") }
        return Block(
            number: try Self.quantity(answer["number"], "\(method).number"),
            hash: try Self.bytes(answer["hash"], "\(method).hash", count: 32),
            parentHash: try Self.bytes(answer["parentHash"], "\(method).parentHash", count: 32),
            timestamp: try Self.quantity(answer["timestamp"], "\(method).timestamp"),
            baseFeePerGas: try Self.optionalQuantity(answer["baseFeePerGas"], "\(method).baseFeePerGas"))
    }

    /// eth_getTransactionCount: the next nonce, counting mined transactions (`.latest`) or also
    /// those waiting in the node's pool (`.pending`).
    public func transactionCount(_ address: Address, _ tag: BlockTag = .latest) async throws(RPCError) -> UInt64 {
        try Self.quantity(
            try await request(method: "eth_getTransactionCount", params: [.string(Hex.encode(address.bytes)), tag.json]),
            "eth_getTransactionCount")
    }

    /// eth_getBalance in wei.
    public func balance(_ address: Address, _ tag: BlockTag = .latest) async throws(RPCError) -> UInt128 {
        try Self.quantity(
            try await request(method: "eth_getBalance", params: [.string(Hex.encode(address.bytes)), tag.json]),
            "eth_getBalance")
    }

    /// eth_gasPrice in wei.
    public func gasPrice() async throws(RPCError) -> UInt128 {
        try Self.quantity(try await request(method: "eth_gasPrice"), "eth_gasPrice")
    }

    /// eth_maxPriorityFeePerGas in wei (not every node has it: callers fall back to a default).
    public func maxPriorityFeePerGas() async throws(RPCError) -> UInt128 {
        try Self.quantity(try await request(method: "eth_maxPriorityFeePerGas"), "eth_maxPriorityFeePerGas")
    }

    /// eth_sendRawTransaction; returns the transaction hash. A node that already has this very
    /// transaction counts as success — resubmitting the same signed bytes is how a payout is
    /// retried: an "already known" answer in any client's wording (geth/Erigon "already known",
    /// Besu "known transaction", Nethermind "AlreadyKnown", OpenEthereum "already imported"), an
    /// error naming its hash, or any refusal (geth says "nonce too low" once it is mined) while
    /// eth_getTransactionByHash finds it.
    public func sendRawTransaction(_ raw: [UInt8]) async throws(RPCError) -> [UInt8] {
        let hash = Keccak256.hash(raw)
        let answer: JSON
        do {
            answer = try await request(method: "eth_sendRawTransaction", params: [.string(Hex.encode(raw))])
        } catch {
            guard case .server(_, let message) = error else { throw error }
            if Self.meansAlreadyKnown(message, hash: hash) { return hash }
            if let known = try? await transaction(hash), known.hash == hash { return hash }
            throw error
        }
        let returned = try Self.bytes(answer, "eth_sendRawTransaction", count: 32)
        guard returned == hash else {
            throw .malformed(
                "eth_sendRawTransaction: the node at \(endpoint) returned hash \(Hex.encode(returned)) for a transaction whose hash is \(Hex.encode(hash))"
            )
        }
        return hash
    }

    static func meansAlreadyKnown(_ message: String, hash: [UInt8]) -> Bool {
        let lower = message.lowercased()
        // Letters only, so "already known", "AlreadyKnown" and "ALREADY_KNOWN" read the same.
        let letters = String(lower.unicodeScalars.filter { ("a"..."z").contains($0) })
        return letters.contains("alreadyknown") || letters.contains("knowntransaction") || letters.contains("alreadyimported")
            || lower.contains(Hex.encode(hash, prefixed: false))
    }

    /// eth_getTransactionReceipt; nil while the transaction is not mined (or unknown).
    public func receipt(_ hash: [UInt8]) async throws(RPCError) -> Receipt? {
        let method = "eth_getTransactionReceipt"
        let answer = try await request(method: method, params: [.string(Hex.encode(hash))])
        if answer.isNull { return nil }
        guard let logs = answer["logs"]?.arrayValue else { throw .malformed("\(method): no logs array in \(answer)") }
        guard let statusJSON = answer["status"], !statusJSON.isNull else {
            throw .malformed("\(method): the receipt has no status (a pre-Byzantium network is not supported)")
        }
        return Receipt(
            transactionHash: try Self.bytes(answer["transactionHash"], "\(method).transactionHash", count: 32),
            blockNumber: try Self.quantity(answer["blockNumber"], "\(method).blockNumber"),
            blockHash: try Self.bytes(answer["blockHash"], "\(method).blockHash", count: 32),
            status: try Self.quantity(statusJSON, "\(method).status"),
            gasUsed: try Self.quantity(answer["gasUsed"], "\(method).gasUsed"),
            effectiveGasPrice: try Self.optionalQuantity(answer["effectiveGasPrice"], "\(method).effectiveGasPrice"),
            from: try Self.optionalAddress(answer["from"], "\(method).from"),
            to: try Self.optionalAddress(answer["to"], "\(method).to"),
            contractAddress: try Self.optionalAddress(answer["contractAddress"], "\(method).contractAddress"),
            logs: try logs.map { (log) throws(RPCError) in try Self.log(log, method) })
    }

    /// eth_getTransactionByHash; nil if the node does not know it (never sent, or dropped).
    public func transaction(_ hash: [UInt8]) async throws(RPCError) -> TransactionInfo? {
        let method = "eth_getTransactionByHash"
        let answer = try await request(method: method, params: [.string(Hex.encode(hash))])
        if answer.isNull { return nil }
        guard let from = try Self.optionalAddress(answer["from"], "\(method).from") else {
            throw .malformed("\(method): no sender in \(answer)")
        }
        return TransactionInfo(
            hash: try Self.bytes(answer["hash"], "\(method).hash", count: 32), from: from,
            to: try Self.optionalAddress(answer["to"], "\(method).to"),
            nonce: try Self.quantity(answer["nonce"], "\(method).nonce"),
            blockNumber: try Self.optionalQuantity(answer["blockNumber"], "\(method).blockNumber"))
    }

    /// eth_call: runs `data` against `to` at `block` without a transaction; returns the output.
    /// A revert is `.server` (see `RPCError.isRevert`) with the contract's reason when given.
    public func call(
        to: Address, data: [UInt8], from: Address? = nil, block: BlockTag = .latest
    ) async throws(RPCError) -> [UInt8] {
        let answer = try await request(
            method: "eth_call", params: [Self.callObject(from: from, to: to, data: data, value: 0), block.json])
        return try Self.bytes(answer, "eth_call")
    }

    /// eth_estimateGas for a call or transfer from `from`; a revert is `.server`.
    public func estimateGas(from: Address, to: Address?, data: [UInt8] = [], value: UInt128 = 0) async throws(RPCError) -> UInt64
    {
        try Self.quantity(
            try await request(method: "eth_estimateGas", params: [Self.callObject(from: from, to: to, data: data, value: value)]),
            "eth_estimateGas")
    }

    /// eth_getLogs of `address` in blocks from...to (inclusive). `topics` filters by position:
    /// nil matches anything there (usually `[topic0]`, the event).
    public func logs(address: Address, topics: [[UInt8]?] = [], from: UInt64, to: UInt64) async throws(RPCError) -> [Log] {
        let method = "eth_getLogs"
        let filter: JSON = .object([
            "address": .string(Hex.encode(address.bytes)),
            "fromBlock": .string(Hex.quantity(from)),
            "toBlock": .string(Hex.quantity(to)),
            "topics": .array(topics.map { $0.map { .string(Hex.encode($0)) } ?? .null }),
        ])
        let answer = try await request(method: method, params: [filter])
        guard let logs = answer.arrayValue else { throw .malformed("\(method): expected an array, got \(answer)") }
        return try logs.map { (log) throws(RPCError) in try Self.log(log, method) }
    }

    // MARK: Parsing

    private static func callObject(from: Address?, to: Address?, data: [UInt8], value: UInt128) -> JSON {
        var object: [String: JSON] = ["data": .string(Hex.encode(data))]
        if let from { object["from"] = .string(Hex.encode(from.bytes)) }
        if let to { object["to"] = .string(Hex.encode(to.bytes)) }
        if value != 0 { object["value"] = .string(Hex.quantity(value)) }
        return .object(object)
    }

    static func log(_ json: JSON, _ method: String) throws(RPCError) -> Log {
        guard let topics = json["topics"]?.arrayValue else { throw .malformed("\(method): a log without topics: \(json)") }
        guard let address = try optionalAddress(json["address"], "\(method) log.address") else {
            throw .malformed("\(method): a log without an address: \(json)")
        }
        return Log(
            address: address,
            topics: try topics.map { (topic) throws(RPCError) in try bytes(topic, "\(method) log.topics", count: 32) },
            data: try bytes(json["data"], "\(method) log.data"),
            blockNumber: try quantity(json["blockNumber"], "\(method) log.blockNumber"),
            blockHash: try bytes(json["blockHash"], "\(method) log.blockHash", count: 32),
            transactionHash: try bytes(json["transactionHash"], "\(method) log.transactionHash", count: 32),
            logIndex: try quantity(json["logIndex"], "\(method) log.logIndex"),
            removed: json["removed"]?.boolValue ?? false)
    }

    /// A QUANTITY field, strictly: a 0x-prefixed hex string that fits in `T`.
    static func quantity<T: UnsignedInteger & FixedWidthInteger>(_ json: JSON?, _ what: String) throws(RPCError) -> T {
        guard let text = json?.stringValue else {
            throw .malformed("\(what): expected a hex quantity, got \(json.map(\.description) ?? "nothing")")
        }
        do { return try Hex.parseQuantity(text, as: T.self) } catch { throw .malformed("\(what): \(error)") }
    }

    static func optionalQuantity<T: UnsignedInteger & FixedWidthInteger>(_ json: JSON?, _ what: String) throws(RPCError) -> T? {
        guard let json, !json.isNull else { return nil }
        return try quantity(json, what) as T
    }

    /// A DATA field: 0x-prefixed hex bytes (exactly `count` of them if given).
    static func bytes(_ json: JSON?, _ what: String, count: Int? = nil) throws(RPCError) -> [UInt8] {
        guard let text = json?.stringValue else {
            throw .malformed("\(what): expected hex data, got \(json.map(\.description) ?? "nothing")")
        }
        let value: [UInt8]
        do { value = try Hex.decode(text) } catch { throw .malformed("\(what): \(error)") }
        if let count, value.count != count { throw .malformed("\(what): expected \(count) bytes, got \(value.count)") }
        return value
    }

    static func optionalAddress(_ json: JSON?, _ what: String) throws(RPCError) -> Address? {
        guard let json, !json.isNull else { return nil }
        let value = try bytes(json, what, count: 20)
        do { return try Address(bytes: value) } catch { throw .malformed("\(what): \(error)") }
    }
}
