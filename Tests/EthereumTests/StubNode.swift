import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fake JSON-RPC node on 127.0.0.1 answering each request as `reply` says, so the client's
/// handling of answers a real node gives rarely (garbage, HTTP errors, silence, odd errors)
/// is tested over real HTTP.
final class StubNode: Sendable {
    enum Reply: Sendable {
        /// {"jsonrpc":"2.0","id":<the request's id>,"result":<json>}
        case result(String)
        /// A JSON-RPC error answer; `data` is raw JSON (e.g. "\"0x08c3…\"").
        case error(code: Int, message: String, data: String? = nil)
        /// Any status and body, verbatim.
        case raw(status: Int, body: String)
        /// Never answers (the connection stays open until `stop`).
        case silent
    }

    let port: UInt16
    private let listener: Int32
    private let held = Mutex<[Int32]>([])
    private let reply: @Sendable (_ method: String, _ params: [Any]) -> Reply
    /// Methods received, in order.
    let methods = Mutex<[String]>([])

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(_ reply: @escaping @Sendable (_ method: String, _ params: [Any]) -> Reply) throws {
        self.reply = reply
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in held.withLock({ $0 }) { close(fd) }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ fd: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bodyStart: Int? = nil
        var contentLength = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else {
                close(fd)
                return
            }
            request += buffer[0..<count]
            if bodyStart == nil, let end = request.firstRange(of: Array("\r\n\r\n".utf8)) {
                bodyStart = end.upperBound
                let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let start = bodyStart, request.count - start >= contentLength { break }
        }
        let body = Data(request[bodyStart!...])
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        let method = object["method"] as? String ?? ""
        let id = object["id"] as? Int ?? 0
        methods.withLock { $0.append(method) }
        let status: Int
        let text: String
        switch reply(method, object["params"] as? [Any] ?? []) {
        case .result(let json):
            (status, text) = (200, "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"result\":\(json)}")
        case .error(let code, let message, let data):
            let dataField = data.map { ",\"data\":\($0)" } ?? ""
            (status, text) = (
                200, "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"error\":{\"code\":\(code),\"message\":\"\(message)\"\(dataField)}}"
            )
        case .raw(let s, let b):
            (status, text) = (s, b)
        case .silent:
            held.withLock { $0.append(fd) }
            return
        }
        let payload = Array(text.utf8)
        let response =
            Array(
                "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
                    .utf8) + payload
        _ = response.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
