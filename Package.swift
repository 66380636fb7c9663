// swift-tools-version: 6.0
import PackageDescription

// Dependencies point one way: clients → WalletCore → OfflineNotes.
// OfflineNotes is the pure protocol (no I/O, clock and randomness injected);
// WalletCore adds keys, storage and the pay/receive engine on top of it.
let package = Package(
    name: "OfflineWallet",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "OfflineNotes", targets: ["OfflineNotes"]),
        .library(name: "WalletCore", targets: ["WalletCore"]),
        .library(name: "QRPayload", targets: ["QRPayload"]),
        .library(name: "NearbySession", targets: ["NearbySession"]),
        .library(name: "WalletFlows", targets: ["WalletFlows"]),
        .library(name: "WalletAppModels", targets: ["WalletAppModels"]),
        .executable(name: "wallet", targets: ["WalletCLI"]),
        .executable(name: "wallet-demo", targets: ["WalletDemo"]),
        .executable(name: "wallet-tamper", targets: ["TamperTool"]),
        .executable(name: "wallet-bench", targets: ["WalletBench"]),
        .executable(name: "wallet-vectors", targets: ["VectorGenerator"]),
        .executable(name: "wallet-server", targets: ["IssuerServer"]),
        .executable(name: "wallet-load", targets: ["LoadTool"]),
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
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "OfflineNotes",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "WalletCore",
            dependencies: [
                "OfflineNotes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The system SQLite (libsqlite3-dev), for the server's async SQL layer.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // One async SQL interface over SQLite and PostgreSQL, so the issuer's logic is one code path.
        .target(
            name: "SQLStore",
            dependencies: [
                "CSQLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The issuer: accounts, ledger, purchase, redeem, fraud cases. No HTTP.
        .target(
            name: "IssuerCore",
            dependencies: [
                "OfflineNotes", "SQLStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Types, client and server protocol generated from openapi.yaml at build time, so the
        // document and the routes cannot drift apart. Shared by the server, the CLI and the app.
        .target(
            name: "WalletAPI",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // The issuer's HTTP face: Hummingbird, auth tokens, rate limits, problem+json.
        .target(
            name: "IssuerHTTP",
            dependencies: [
                "IssuerCore", "WalletAPI", "OfflineNotes", "SQLStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // A link to ../WalletAPI/openapi.yaml, compiled into the binary and served as
            // /openapi.yaml: exactly the document the routes were generated from.
            resources: [.embedInCode("openapi.yaml")]
        ),
        .executableTarget(
            name: "IssuerServer",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "OfflineNotes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "LoadTool",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "WalletAPI", "OfflineNotes",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "IssuerHTTPTests",
            dependencies: [
                "IssuerHTTP", "IssuerCore", "SQLStore", "WalletAPI", "OfflineNotes", "WalletCore", "WalletSync",
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "IssuerCoreTests",
            dependencies: [
                "IssuerCore", "SQLStore", "OfflineNotes", "DevIssuer", "WalletCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // QR payloads: Base45 text and numbered frames (the QR image libraries come with issue 4).
        .target(name: "QRPayload", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // QR images on Linux: libqrencode to encode, libpng to write and read, zbar to decode.
        // (The app uses CoreImage and AVFoundation.)
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(
            name: "QRImage",
            dependencies: [
                .target(name: "CQREncode", condition: .when(platforms: [.linux])),
                .target(name: "CZBar", condition: .when(platforms: [.linux])),
                .target(name: "CPNG", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "QRImageTests",
            dependencies: ["QRImage", "QRPayload", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "QRPayloadTests",
            dependencies: ["QRPayload", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        // The encrypted, resumable payer/payee session (shared with the app, which runs it over
        // Bluetooth LE); no I/O of its own beyond the link protocol it drives.
        .target(name: "NearbySession", dependencies: ["OfflineNotes", .product(name: "Crypto", package: "swift-crypto")]),
        // Nearby-session links over TCP (the command line's radio).
        .target(
            name: "NearbyTCP",
            dependencies: [
                "NearbySession",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NearbySessionTests",
            dependencies: [
                "NearbySession", "NearbyTCP", "OfflineNotes", "WalletCore", "DevIssuer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Stand-in issuer for tests, the demo and benchmarks (the real one is the server).
        .target(
            name: "DevIssuer",
            dependencies: ["OfflineNotes", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "VectorGenerator",
            dependencies: ["OfflineNotes", "DevIssuer", "NearbySession", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The wallet's online side: talking to the issuer (login, keys, purchase, redeem).
        .target(
            name: "WalletSync",
            dependencies: [
                "WalletCore", "WalletAPI", "OfflineNotes",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
        // The flows every client runs (the CLI today, the app next): login with a credential
        // store, purchase, auto-recharge, the whole sync with progress, nearby pay and receive.
        .target(
            name: "WalletFlows",
            dependencies: [
                "WalletCore", "WalletSync", "OfflineNotes", "NearbySession", "QRPayload",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Test support shared by the wallet-side test targets (a real issuer on loopback, the
        // in-memory flow store, a transport that loses answers). No product ships it.
        .target(
            name: "WalletTestSupport",
            dependencies: [
                "WalletFlows", "WalletCore", "WalletSync", "OfflineNotes", "IssuerHTTP", "IssuerCore", "SQLStore", "DevIssuer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "WalletFlowsTests",
            dependencies: [
                "WalletFlows", "WalletTestSupport", "WalletCore", "WalletSync", "OfflineNotes", "NearbySession", "QRPayload",
                "IssuerCore", "DevIssuer",
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ]
        ),
        // The app's screen models: platform-neutral (Observation, no SwiftUI or UIKit), tested on
        // Linux; the SwiftUI views bind to them.
        .target(
            name: "WalletAppModels",
            dependencies: ["WalletFlows", "WalletCore", "OfflineNotes", "QRPayload", "NearbySession"]
        ),
        .testTarget(
            name: "WalletAppModelsTests",
            dependencies: [
                "WalletAppModels", "WalletFlows", "WalletTestSupport", "WalletCore", "WalletSync", "OfflineNotes", "QRPayload", "DevIssuer",
                "NearbySession",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // `wallet`: the command line (one directory per user; human output or --json).
        .executableTarget(
            name: "WalletCLI",
            dependencies: [
                "WalletCore", "WalletSync", "WalletFlows", "OfflineNotes", "NearbySession", "NearbyTCP", "QRPayload",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The command line as users run it: the built `wallet` binary against a real wallet-server
        // on loopback (both built by `swift build --build-tests`), plus its pure helpers.
        .testTarget(
            name: "WalletCLITests",
            dependencies: [
                "WalletCLI", "WalletCore", "NearbySession", "QRPayload",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
            ]
        ),
        // Test helper for scripts/e2e: signs a double spend the way a tampered phone would.
        .executableTarget(name: "TamperTool", dependencies: ["WalletCore", "OfflineNotes", "QRPayload"]),
        .executableTarget(name: "WalletDemo", dependencies: ["WalletCore", "WalletSync", "OfflineNotes", "DevIssuer"]),
        .executableTarget(
            name: "WalletBench",
            dependencies: [
                "WalletCore", "WalletFlows", "OfflineNotes", "DevIssuer", "NearbySession", "QRPayload",
                .target(name: "QRImage", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "OfflineNotesTests",
            dependencies: [
                "OfflineNotes", "DevIssuer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "WalletCoreTests",
            dependencies: [
                "WalletCore", "OfflineNotes", "DevIssuer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
