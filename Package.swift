// swift-tools-version: 6.0
import PackageDescription

// Sources/ is laid out by tier, and dependencies point one way down it:
//   Clients (wallet CLI; the iOS app in App/) → Wallet (app models → flows → sync → engine;
//   nearby session, QR) → Protocol (offline notes, the HTTP API contract)
//   Issuer (server → HTTP → core → SQL store) → Protocol
//   System: C libraries from Debian. Testing and Tools: never shipped in a product.
// Each target's dependencies are exactly the modules its sources import.
let package = Package(
    name: "OfflineWallet",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "OfflineNotes", targets: ["OfflineNotes"]),
        .library(name: "WalletCore", targets: ["WalletCore"]),
        .library(name: "QRPayload", targets: ["QRPayload"]),
        .library(name: "NearbySession", targets: ["NearbySession"]),
        .library(name: "NearbyGATT", targets: ["NearbyGATT"]),
        .library(name: "WalletFlows", targets: ["WalletFlows"]),
        .library(name: "WalletAppModels", targets: ["WalletAppModels"]),
        .executable(name: "wallet", targets: ["WalletCLI"]),
        .executable(name: "wallet-demo", targets: ["WalletDemo"]),
        .executable(name: "wallet-tamper", targets: ["TamperTool"]),
        .executable(name: "wallet-bench", targets: ["WalletBench"]),
        .executable(name: "wallet-vectors", targets: ["VectorGenerator"]),
        .executable(name: "wallet-server", targets: ["IssuerServer"]),
        .executable(name: "wallet-load", targets: ["LoadTool"]),
        .executable(name: "wallet-economy", targets: ["EconomySim"]),
        .executable(name: "wallet-escrow", targets: ["EscrowTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // `swift package generate-documentation` for the DocC catalogs (scripts/check-docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: - Protocol: the wire contracts both sides speak
        // The offline-note protocol (docs/protocol.md): pure Swift, no I/O; clock and randomness come in.
        .target(
            name: "OfflineNotes",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Protocol/OfflineNotes"
        ),
        // Types, client and server protocol generated from openapi.yaml at build time, so the
        // document and the routes cannot drift apart. Shared by the server and the wallet's sync.
        .target(
            name: "WalletAPI",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Sources/Protocol/WalletAPI",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // Named crash points the crash sweep arms (scripts/crash-sweep); inert unless OW_CRASH_AT is set.
        .target(name: "CrashPoints", path: "Sources/Shared/CrashPoints"),

        // MARK: - Wallet: everything a client stands on
        // The wallet engine: keys, storage, pay / receive / confirm, balances, history, backup.
        .target(
            name: "WalletCore",
            dependencies: [
                "OfflineNotes", "CrashPoints",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/Wallet/WalletCore"
        ),
        // The wallet's online side: talking to the issuer, in the project's own types.
        .target(
            name: "WalletSync",
            dependencies: [
                "WalletCore", "WalletAPI", "OfflineNotes", "CrashPoints",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Sources/Wallet/WalletSync"
        ),
        // The command line's HTTPS to the issuer (SwiftNIO + swift-nio-ssl): system roots, a CA
        // file, or a public-key pin, which URLSession on Linux cannot do. The app keeps URLSession.
        .target(
            name: "WalletHTTPS",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Sources/Wallet/WalletHTTPS"
        ),
        // QR payloads: Base45 text and numbered, checksummed frames (no wallet dependency).
        .target(
            name: "QRPayload",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Wallet/QRPayload"
        ),
        // QR images on Linux: libqrencode to encode, libpng to write and read, zbar to decode.
        // (The app uses CoreImage and AVFoundation.)
        .target(
            name: "QRImage",
            dependencies: [
                .target(name: "CQREncode", condition: .when(platforms: [.linux])),
                .target(name: "CZBar", condition: .when(platforms: [.linux])),
                .target(name: "CPNG", condition: .when(platforms: [.linux])),
            ],
            path: "Sources/Wallet/QRImage"
        ),
        // The encrypted, resumable payer/payee session (shared with the app, which runs it over
        // Bluetooth LE); sans-I/O machines and drivers over a link protocol.
        .target(
            name: "NearbySession",
            dependencies: [
                "OfflineNotes",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Wallet/NearbySession"
        ),
        // Nearby-session links over TCP (the command line's radio).
        .target(
            name: "NearbyTCP",
            dependencies: [
                "NearbySession",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Sources/Wallet/NearbyTCP"
        ),
        // Nearby-session links over Bluetooth LE GATT, platform-neutral: the profile (UUIDs,
        // advertised name, packet size), framing and flow control; the app's CoreBluetooth
        // adapter supplies the radio (docs/protocol.md §12.8).
        .target(
            name: "NearbyGATT",
            dependencies: [
                "NearbySession", "OfflineNotes",
            ],
            path: "Sources/Wallet/NearbyGATT"
        ),
        // The flows every client runs (the CLI and the app): login with a credential store,
        // purchase, auto-recharge, the whole sync with progress, nearby pay and receive.
        .target(
            name: "WalletFlows",
            dependencies: [
                "WalletCore", "WalletSync", "OfflineNotes", "NearbySession", "CrashPoints",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Wallet/WalletFlows"
        ),
        // The app's screen models: platform-neutral (Observation, no SwiftUI or UIKit), tested on
        // Linux; the SwiftUI views in App/ bind to them.
        .target(
            name: "WalletAppModels",
            dependencies: [
                "WalletFlows", "WalletSync", "WalletCore", "OfflineNotes", "QRPayload", "NearbySession",
            ],
            path: "Sources/Wallet/WalletAppModels"
        ),

        // MARK: - Clients
        // `wallet`: the command line (one directory per user; human output or --json).
        .executableTarget(
            name: "WalletCLI",
            dependencies: [
                "WalletFlows", "WalletSync", "WalletCore", "OfflineNotes", "NearbySession", "NearbyTCP", "QRPayload", "CrashPoints", "WalletHTTPS",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Clients/WalletCLI"
        ),

        // MARK: - Issuer: the server side (never depends on the wallet)
        // One async SQL interface over SQLite and PostgreSQL, so the issuer's logic is one code path.
        .target(
            name: "SQLStore",
            dependencies: [
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/Issuer/SQLStore"
        ),
        // The issuer: accounts, ledger, purchase, redeem, fraud cases. No HTTP.
        .target(
            name: "IssuerCore",
            dependencies: [
                "OfflineNotes", "SQLStore", "CrashPoints",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/Issuer/IssuerCore"
        ),
        // The operator console under /console (docs/server.md): server-rendered HTML (mustache
        // templates compiled in), admin sessions in cookies, CSRF tokens, SVG charts. No JavaScript.
        .target(
            name: "IssuerConsole",
            dependencies: [
                "IssuerCore", "OfflineNotes",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Issuer/IssuerConsole"
        ),
        // The issuer's HTTP face: Hummingbird, auth tokens, rate limits, problem+json.
        .target(
            name: "IssuerHTTP",
            dependencies: [
                "IssuerCore", "IssuerConsole", "WalletAPI", "OfflineNotes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/Issuer/IssuerHTTP",
            // A link to ../../Protocol/WalletAPI/openapi.yaml, compiled into the binary and served as
            // /openapi.yaml: exactly the document the routes were generated from.
            resources: [.embedInCode("openapi.yaml")]
        ),
        // Ethereum primitives, pure Swift but for secp256k1 (libsecp256k1): Keccak-256, RLP, ABI,
        // addresses, EIP-1559 transactions and their signatures. No I/O.
        .target(
            name: "Ethereum",
            dependencies: [
                "CSecp256k1",
            ],
            path: "Sources/Issuer/Ethereum"
        ),
        // A JSON-RPC client for any standard Ethereum node, over Foundation's URLSession.
        .target(
            name: "EthereumRPC",
            dependencies: [
                "Ethereum",
            ],
            path: "Sources/Issuer/EthereumRPC"
        ),
        // Settlement on an EVM network (docs/server.md): the escrow contract's calls and events,
        // deposits credited after N confirmations, payouts with nonce tracking and recovery,
        // reconciliation of the escrow against the books.
        .target(
            name: "EscrowSettlement",
            dependencies: [
                "IssuerCore", "Ethereum", "EthereumRPC", "OfflineNotes", "SQLStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Issuer/EscrowSettlement"
        ),
        // `wallet-server`: serve, create-admin, rotate-keys.
        .executableTarget(
            name: "IssuerServer",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "OfflineNotes", "EscrowSettlement", "Ethereum", "EthereumRPC", "CrashPoints",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Sources/Issuer/IssuerServer"
        ),

        // MARK: - System: C libraries from Debian
        .systemLibrary(name: "CSQLite", path: "Sources/System/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/System/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZBar", path: "Sources/System/CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/System/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CSpawn", path: "Sources/System/CSpawn"),
        .systemLibrary(name: "CSecp256k1", path: "Sources/System/CSecp256k1", pkgConfig: "libsecp256k1", providers: [.apt(["libsecp256k1-dev"])]),

        // MARK: - Testing: doubles and harnesses for tests, benchmarks and the demo (no product ships them)
        // Generic test helpers: a seedable generator, a settable clock, error capture, temporary
        // directories that clean up, and a real wallet-server process on a port the system picked.
        .target(
            name: "TestSupport",
            dependencies: ["CSpawn"],
            path: "Sources/Testing/TestSupport"
        ),
        // Issuer-side test helpers: scratch databases that drop themselves (SQLite directory or
        // PostgreSQL schema), issuerError, key registration and register-and-login.
        .target(
            name: "IssuerTesting",
            dependencies: [
                "IssuerCore", "SQLStore", "WalletAPI", "OfflineNotes", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/Testing/IssuerTesting"
        ),
        // A small offline economy (a dev issuer, Alice, Bob, Carol) and the real messages they
        // exchange, for the protocol's tests and the app models' tests.
        .target(
            name: "OfflineNotesTesting",
            dependencies: [
                "OfflineNotes", "DevIssuer",
            ],
            path: "Sources/Testing/OfflineNotesTesting"
        ),
        // The wallet engine's doubles that need no issuer: a simulated Secure Enclave.
        .target(
            name: "WalletCoreTesting",
            dependencies: ["WalletCore", "OfflineNotes"],
            path: "Sources/Testing/WalletCoreTesting"
        ),
        // Stand-in issuer in memory, for tests, the demo and benchmarks (the real one is the server).
        .target(
            name: "DevIssuer",
            dependencies: [
                "OfflineNotes",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Testing/DevIssuer"
        ),
        // A simulated radio (MTU, loss, reordering, cuts) behind the same link protocol as TCP and
        // Bluetooth LE.
        .target(
            name: "NearbySessionTesting",
            dependencies: [
                "NearbySession", "TestSupport",
            ],
            path: "Sources/Testing/NearbySessionTesting"
        ),
        // A simulated Bluetooth LE radio (ATT MTU, bounded radio queues, stalls, cuts) behind the
        // same GATTPacketPort as the app's CoreBluetooth adapter.
        .target(
            name: "NearbyGATTTesting",
            dependencies: [
                "NearbyGATT", "NearbySession",
            ],
            path: "Sources/Testing/NearbyGATTTesting"
        ),
        // A real issuer on loopback, the in-memory flow store, a transport that loses answers, a
        // pair of wallets.
        .target(
            name: "WalletTestSupport",
            dependencies: [
                "WalletFlows", "WalletSync", "WalletCore", "OfflineNotes", "NearbySession", "IssuerHTTP", "IssuerCore", "IssuerTesting", "TestSupport", "DevIssuer",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Sources/Testing/WalletTestSupport"
        ),
        // The adversarial economy (docs/reliability.md §3): the real engine and issuer in one
        // process on a simulated clock, with cheaters, and the money rules as checks.
        .target(
            name: "EconomySimulation",
            dependencies: [
                "IssuerCore", "SQLStore", "WalletCore", "OfflineNotes", "QRPayload",
            ],
            path: "Sources/Testing/EconomySimulation"
        ),

        // The local EVM from tests' side: the node `scripts/with-evm` started (OW_TEST_EVM_RPC),
        // its funded keys, and its test controls (mine, snapshot, revert, automine).
        .target(
            name: "EVMTesting",
            dependencies: [
                "Ethereum", "EthereumRPC",
            ],
            path: "Sources/Testing/EVMTesting"
        ),

        // MARK: - Tools: developer executables
        // `wallet-escrow`: the escrow's operator and test tool (keys, status, owner actions, a
        // deposit from a key file).
        .executableTarget(
            name: "EscrowTool",
            dependencies: [
                "Ethereum", "EthereumRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/EscrowTool"
        ),
        // `wallet-demo`: the engine alone, in-process.
        .executableTarget(
            name: "WalletDemo",
            dependencies: [
                "WalletCore", "WalletSync", "OfflineNotes", "DevIssuer",
            ],
            path: "Sources/Tools/WalletDemo"
        ),
        // `wallet-tamper`: signs a double spend the way a tampered phone would (scripts/e2e).
        .executableTarget(
            name: "TamperTool",
            dependencies: [
                "WalletCore", "OfflineNotes", "QRPayload",
            ],
            path: "Sources/Tools/TamperTool"
        ),
        // `wallet-vectors`: writes docs/vectors.
        .executableTarget(
            name: "VectorGenerator",
            dependencies: [
                "OfflineNotes", "NearbySession", "QRPayload", "DevIssuer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Tools/VectorGenerator"
        ),
        // `wallet-bench`: protocol and scan-to-paid benchmarks, as ratios to a same-run reference.
        .executableTarget(
            name: "WalletBench",
            dependencies: [
                "WalletCore", "WalletFlows", "OfflineNotes", "NearbySession", "NearbySessionTesting", "QRPayload", "DevIssuer",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Tools/WalletBench"
        ),
        // `wallet-load`: redemptions/s over HTTP against the database's insert ceiling.
        .executableTarget(
            name: "LoadTool",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "WalletAPI", "OfflineNotes", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Sources/Tools/LoadTool"
        ),
        // `wallet-economy`: the adversarial economy at any size, with progress and a report.
        .executableTarget(
            name: "EconomySim",
            dependencies: [
                "EconomySimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/EconomySim"
        ),

        // MARK: - Tests (one target per module; suites needing PostgreSQL run when OW_TEST_POSTGRES_URL is set)
        .testTarget(
            name: "OfflineNotesTests",
            dependencies: [
                "OfflineNotes", "DevIssuer", "OfflineNotesTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/OfflineNotesTests"
        ),
        .testTarget(name: "CrashPointsTests", dependencies: ["CrashPoints"], path: "Tests/CrashPointsTests"),
        .testTarget(
            name: "WalletCoreTests",
            dependencies: [
                "WalletCore", "OfflineNotes", "DevIssuer", "TestSupport", "WalletCoreTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/WalletCoreTests"
        ),
        // HTTPS on loopback: a real wallet-server with certificates made at test time (openssl),
        // clients verifying by CA or pin, the CLI over HTTPS, key file modes, no secret in a log.
        .testTarget(
            name: "TransportSecurityTests",
            dependencies: ["WalletHTTPS", "WalletSync", "TestSupport"],
            path: "Tests/TransportSecurityTests"
        ),
        .testTarget(
            name: "QRPayloadTests",
            dependencies: [
                "QRPayload", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/QRPayloadTests"
        ),
        .testTarget(
            name: "QRImageTests",
            dependencies: [
                "QRPayload", "TestSupport",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/QRImageTests"
        ),
        .testTarget(
            name: "NearbySessionTests",
            dependencies: [
                "NearbySession", "NearbyTCP", "NearbySessionTesting", "TestSupport", "OfflineNotes", "WalletCore", "DevIssuer", "WalletTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/NearbySessionTests"
        ),
        .testTarget(
            name: "NearbyGATTTests",
            dependencies: [
                "NearbyGATT", "NearbyGATTTesting", "NearbySession", "OfflineNotes", "WalletCore", "WalletFlows", "WalletTestSupport",
            ],
            path: "Tests/NearbyGATTTests"
        ),
        .testTarget(
            name: "WalletFlowsTests",
            dependencies: [
                "WalletFlows", "WalletTestSupport", "NearbySessionTesting", "TestSupport", "WalletSync", "WalletCore", "OfflineNotes", "NearbySession", "DevIssuer",
            ],
            path: "Tests/WalletFlowsTests"
        ),
        .testTarget(
            name: "WalletAppModelsTests",
            dependencies: [
                "WalletAppModels", "WalletFlows", "WalletTestSupport", "IssuerTesting", "TestSupport", "OfflineNotesTesting", "NearbySessionTesting", "WalletSync", "WalletCore", "OfflineNotes", "QRPayload", "NearbySession",
                "NearbyGATT", "NearbyGATTTesting", "IssuerCore", "WalletCoreTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/WalletAppModelsTests"
        ),
        // The command line as users run it: the built `wallet` binary against a real wallet-server
        // on loopback (both built by `swift build --build-tests`), plus its pure helpers.
        .testTarget(
            name: "WalletCLITests",
            dependencies: [
                "WalletCLI", "WalletCore", "WalletFlows", "OfflineNotes", "NearbySession", "QRPayload", "TestSupport",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
            ],
            path: "Tests/WalletCLITests"
        ),
        .testTarget(
            name: "IssuerCoreTests",
            dependencies: [
                "IssuerCore", "SQLStore", "OfflineNotes", "WalletCore", "TestSupport", "IssuerTesting", "WalletTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/IssuerCoreTests"
        ),
        .testTarget(
            name: "IssuerHTTPTests",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "WalletAPI", "OfflineNotes", "WalletCore", "WalletSync", "TestSupport", "IssuerTesting", "WalletTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Tests/IssuerHTTPTests"
        ),
        // The operator console over real HTTP on loopback: sessions, cookie flags, CSRF, refusals,
        // escaping, every page (both databases).
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "IssuerConsole", "IssuerHTTP", "IssuerCore", "IssuerTesting", "OfflineNotes", "SQLStore", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ConsoleTests"
        ),
        // A short adversarial economy on both databases, and the checks shown to catch planted faults.
        .testTarget(
            name: "EconomyTests",
            dependencies: [
                "EconomySimulation",
            ],
            path: "Tests/EconomyTests"
        ),
        // Suites needing the local EVM run when OW_TEST_EVM_RPC is set (scripts/with-evm).
        .testTarget(
            name: "EthereumTests",
            dependencies: [
                "Ethereum", "EthereumRPC", "EVMTesting", "TestSupport",
            ],
            path: "Tests/EthereumTests"
        ),
        .testTarget(
            name: "EscrowSettlementTests",
            dependencies: [
                "EscrowSettlement", "IssuerCore", "SQLStore", "Ethereum", "EthereumRPC", "EVMTesting", "TestSupport", "IssuerTesting",
                "OfflineNotes", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/EscrowSettlementTests"
        ),
        // wallet-escrow's exact amount parsing and formatting, its reading of the escrow's cap events and
        // ownership rules (the tool itself runs in scripts/e2e-escrow).
        .testTarget(
            name: "EscrowToolTests",
            dependencies: ["EscrowTool", "Ethereum", "EthereumRPC", "TestSupport"],
            path: "Tests/EscrowToolTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

#if os(Linux)
// The app's CoreBluetooth adapter (App/Sources/Adapters/Bluetooth), built on Linux only,
// against a simulated CoreBluetooth, so its queue, waits, routing and backpressure run real
// payments in tests. (On a Mac `CoreBluetooth` is Apple's framework and Xcode builds the adapter
// in the app; these targets do not exist there.) The manifest is read on the host even when a
// build cross-compiles for Apple's SDK, so scripts/check-app-sdk sets OW_APPLE_SDK_BUILD: there
// the simulator would stand in for Apple's framework.
if Context.environment["OW_APPLE_SDK_BUILD"] == nil {
    package.targets += [
        // A simulated CoreBluetooth: the API the adapter uses, behaving as Apple documents it.
        .target(
            name: "CoreBluetooth",
            path: "Sources/Testing/CoreBluetoothSimulator"
        ),
        .target(
            name: "BluetoothAdapter",
            dependencies: ["CoreBluetooth", "NearbyGATT", "NearbySession", "OfflineNotes", "WalletAppModels"],
            path: "App/Sources/Adapters/Bluetooth",
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "BluetoothAdapterTests",
            dependencies: [
                "BluetoothAdapter", "CoreBluetooth", "NearbyGATT", "NearbySession", "OfflineNotes", "WalletAppModels", "WalletCore",
                "WalletFlows", "WalletTestSupport",
            ],
            path: "Tests/BluetoothAdapterTests"
        ),
    ]
}
#endif
