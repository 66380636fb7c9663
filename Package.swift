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
