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
        .executable(name: "wallet-demo", targets: ["WalletDemo"]),
        .executable(name: "wallet-bench", targets: ["WalletBench"]),
        .executable(name: "wallet-vectors", targets: ["VectorGenerator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
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
        .testTarget(
            name: "IssuerCoreTests",
            dependencies: [
                "IssuerCore", "SQLStore", "OfflineNotes", "DevIssuer", "WalletCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
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
            dependencies: ["OfflineNotes", "DevIssuer", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(name: "WalletDemo", dependencies: ["WalletCore", "OfflineNotes", "DevIssuer"]),
        .executableTarget(
            name: "WalletBench",
            dependencies: ["WalletCore", "OfflineNotes", "DevIssuer", .product(name: "Crypto", package: "swift-crypto")]
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
