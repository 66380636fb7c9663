import Foundation
import PostgresNIO

extension PostgresStore {
    /// Where a URL points, parsed once for the pool and for the start-up probe.
    struct Endpoint {
        /// Every host, in the order given; one unless the URL names a primary and its standbys.
        let hosts: [(host: String, port: Int)]
        let user: String
        let password: String?
        let database: String?
        let schema: String?
        /// `application_name`, which names the connections in pg_stat_activity.
        let applicationName: String?

        /// The first host (the only one, on the single-server path).
        var host: String { hosts[0].host }
        var port: Int { hosts[0].port }

        init(url: String) throws {
            if url.contains("://") { try self.init(urlForm: url) } else { try self.init(keywords: url) }
        }

        private init(urlForm url: String) throws {
            // libpq's list of hosts (`a:1,b:2`) is no URL authority: parse the URL with its
            // first host, and the list on its own.
            var single = url
            var list: [(host: String, port: Int)]?
            if let scheme = url.range(of: "://") {
                let rest = url[scheme.upperBound...]
                let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)]
                let hostPart = authority[
                    (authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex)...]
                if hostPart.contains(",") {
                    list = try hostPart.split(separator: ",", omittingEmptySubsequences: false).map {
                        try Self.hostAndPort(String($0), url: url)
                    }
                    single.replaceSubrange(hostPart.startIndex..<hostPart.endIndex, with: "localhost")
                }
            }
            guard let components = URLComponents(string: single), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let host = components.host, let user = components.user
            else { throw SQLError.failed("not a postgres:// URL: \(Self.redacted(url))") }
            hosts = list ?? [(host, components.port ?? 5432)]
            self.user = user
            password = components.password
            database = components.path.split(separator: "/").first.map(String.init)
            schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value
            applicationName = components.queryItems?.first(where: { $0.name == "application_name" })?.value
        }

        /// `host`, `host:port`, `[v6]` or `[v6]:port` from a URL's list of hosts.
        private static func hostAndPort(_ text: String, url: String) throws -> (host: String, port: Int) {
            var host = Substring(text)
            var port: Substring?
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                let after = host[host.index(after: close)...]
                port = after.hasPrefix(":") ? after.dropFirst() : nil
                host = host[host.index(after: host.startIndex)..<close]
            } else if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard !host.isEmpty else { throw SQLError.failed("an empty host in the list of hosts of \(Self.redacted(url))") }
            guard let port else { return (String(host), 5432) }
            guard let number = Int(port), (1...65_535).contains(number) else {
                throw SQLError.failed("port \(port) of host \(host) is not a number from 1 to 65535 in \(Self.redacted(url))")
            }
            return (String(host), number)
        }

        /// libpq's keyword form: `host=a,b port=5432,5433 user=u password=p dbname=d`, values
        /// in single quotes where they hold spaces. One port for every host, or one per host.
        private init(keywords text: String) throws {
            var values: [String: String] = [:]
            var rest = Substring(text)
            while true {
                rest = rest.drop(while: \.isWhitespace)
                guard !rest.isEmpty else { break }
                guard let equals = rest.firstIndex(of: "=") else {
                    throw SQLError.failed("not a postgres:// URL nor a libpq string of key=value pairs: \(Self.redacted(text))")
                }
                let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
                rest = rest[rest.index(after: equals)...].drop(while: \.isWhitespace)
                var value = ""
                if rest.first == "'" {
                    rest = rest.dropFirst()
                    var closed = false
                    while let c = rest.first {
                        rest = rest.dropFirst()
                        if c == "\\", let next = rest.first {
                            value.append(next)
                            rest = rest.dropFirst()
                        } else if c == "'" {
                            closed = true
                            break
                        } else {
                            value.append(c)
                        }
                    }
                    guard closed else { throw SQLError.failed("an unclosed quote after \(key)= in \(Self.redacted(text))") }
                } else {
                    let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                    value = String(rest[..<end])
                    rest = rest[end...]
                }
                let known = ["host", "port", "user", "password", "dbname", "application_name", "search_path"]
                guard known.contains(key) else {
                    throw SQLError.failed(
                        "unknown key \(key) in \(Self.redacted(text)); the server reads \(known.joined(separator: ", "))")
                }
                values[key] = value
            }
            guard let hostList = values["host"], let user = values["user"] else {
                throw SQLError.failed("the connection string needs host= and user=: \(Self.redacted(text))")
            }
            let names = hostList.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let portTexts = (values["port"] ?? "5432").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard portTexts.count == 1 || portTexts.count == names.count else {
                throw SQLError.failed(
                    "\(names.count) hosts but \(portTexts.count) ports in \(Self.redacted(text)): give one port, or one per host")
            }
            var hosts: [(host: String, port: Int)] = []
            for (i, name) in names.enumerated() {
                let portText = portTexts.count == 1 ? portTexts[0] : portTexts[i]
                guard !name.isEmpty else { throw SQLError.failed("an empty host in \(Self.redacted(text))") }
                guard let port = Int(portText), (1...65_535).contains(port) else {
                    throw SQLError.failed("port \(portText) is not a number from 1 to 65535 in \(Self.redacted(text))")
                }
                hosts.append((name, port))
            }
            self.hosts = hosts
            self.user = user
            password = values["password"]
            database = values["dbname"]
            schema = values["search_path"]
            applicationName = values["application_name"]
        }

        /// The URL as it may be shown: a password in it (`user:password@`, `password=…`)
        /// becomes `***`. The refusal above is printed at start and may be logged; the password
        /// must not be.
        static func redacted(_ url: String) -> String {
            if !url.contains("://") {
                return url.replacingOccurrences(
                    of: #"password\s*=\s*('(\\.|[^'])*'?|\S*)"#, with: "password=***", options: .regularExpression)
            }
            guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at,
                let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
            else { return url }
            return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
        }

        /// A single connection to `hosts[host]` (probes, the start-up check).
        func connectionConfiguration(host: Int) -> PostgresConnection.Configuration {
            PostgresConnection.Configuration(
                host: hosts[host].host, port: hosts[host].port, username: user, password: password, database: database,
                tls: .disable)
        }

        func clientConfiguration(host: Int, maxConnections: Int) -> PostgresClient.Configuration {
            var config = PostgresClient.Configuration(
                host: hosts[host].host, port: hosts[host].port, username: user, password: password, database: database,
                tls: .disable)
            config.options.maximumConnections = maxConnections
            config.options.additionalStartupParameters = [("search_path", schema), ("application_name", applicationName)]
                .compactMap { name, value in
                    value.map { (name, $0) }
                }
            return config
        }

        func waitUntilReachable(patience: Duration, logger: Logger) async throws {
            let clock = ContinuousClock()
            let deadline = clock.now + patience
            var pause = Duration.milliseconds(100)
            var attempt = 1
            while true {
                var config = connectionConfiguration(host: 0)
                // One attempt may take what is left of the patience (a silent host), never less than 0.1 s.
                let left = (deadline - clock.now).components
                config.options.connectTimeout = .nanoseconds(
                    max(100_000_000, left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000))
                do {
                    let connection = try await PostgresConnection.connect(configuration: config, id: 0, logger: logger)
                    try? await connection.close()
                    return
                } catch {
                    let cause = Self.describe(error)
                    if let state = (error as? PSQLError)?.serverInfo?[.sqlState], !Self.transient(sqlState: state) {
                        throw SQLError.failed("PostgreSQL at \(host):\(port) refused the connection: \(cause)")
                    }
                    let left = deadline - clock.now
                    guard left > .zero else {
                        throw SQLError.failed(
                            "cannot reach PostgreSQL at \(host):\(port) after \(Self.seconds(patience)) s: \(cause)")
                    }
                    if attempt == 1 {
                        logger.warning(
                            "PostgreSQL at \(host):\(port) is not reachable (\(cause)); trying again for up to \(Self.seconds(patience)) s"
                        )
                    }
                    attempt += 1
                    try await Task.sleep(for: min(pause, left))
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }

        /// `2`, `0.5`: the patience as the operator gave it.
        static func seconds(_ d: Duration) -> String {
            let value = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return value == value.rounded() ? String(Int64(value)) : String(value)
        }

        /// Server refusals worth waiting out: the server is starting, shutting down or full.
        static func transient(sqlState: String) -> Bool {
            ["57P03", "57P01", "57P02", "53300", "08006", "08001"].contains(sqlState)
        }

        /// The cause in words. PSQLError hides everything behind a generic description (it may
        /// reach end users); here it goes to the operator starting the server.
        static func describe(_ error: any Error) -> String {
            guard let psql = error as? PSQLError else { return String(describing: error) }
            if let message = psql.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(psql.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = psql.underlying { return String(describing: underlying) }
            return String(describing: psql.code)
        }
    }
}
