// swift-tools-version: 6.0
import PackageDescription

// The decoders under libFuzzer (docs/reliability.md §1). Build and run only through scripts/fuzz:
//   swift build --package-path Fuzz --sanitize=fuzzer --sanitize=address --scratch-path .build-fuzz
//
// A package of its own, for two reasons:
// - `swift build` / `swift test` of the project must never link an executable without a main;
// - `--sanitize` applies to every target SwiftPM builds, including the host tools of build-tool
//   plugins, and the project's WalletAPI target runs the OpenAPI generator: built with
//   -sanitize=fuzzer its tool gets libFuzzer's main twice and does not link. A package that
//   depends on the project's package builds that tool even when no product it asks for needs it.
// So this package compiles the project's own source directories through the links in Links/
// (the same files, not copies), declaring for each module exactly the dependencies the project's
// Package.swift gives it (a module that gains one fails this build loudly), and the API's
// schema types from the generator's output for the project's openapi.yaml, which scripts/fuzz
// copies into Generated/ (not committed) from the normal build.
let package = Package(
    name: "WalletFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    ],
    targets: [
        // The libFuzzer entry points alone, in a file that is not main.swift (so no main is
        // emitted; libFuzzer's is linked): each input goes to the target OW_FUZZ_TARGET names.
        .executableTarget(
            name: "WalletFuzz",
            dependencies: ["FuzzTargets"],
            path: "Sources/WalletFuzz"
        ),
        // One function per decoder family: decode, check the round trip and the invariants.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "OfflineNotes", "QRPayload", "NearbySession", "WalletCore", "WalletAPI", "StrictJSON", "Ethereum", "EthereumRPC",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Sources/FuzzTargets"
        ),

        // MARK: - The project's modules, from its own sources (Links/ → ../Sources/…)
        .target(
            name: "OfflineNotes",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Links/OfflineNotes"
        ),
        .target(
            name: "QRPayload",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Links/QRPayload"
        ),
        .target(
            name: "NearbySession",
            dependencies: ["OfflineNotes", .product(name: "Crypto", package: "swift-crypto")],
            path: "Links/NearbySession"
        ),
        // Only the passphrase box of WalletCore and the error type it throws (links to
        // Sources/Wallet/WalletCore/Keys/PassphraseBox.swift and WalletError.swift): the rest of
        // the engine is a database, not a decoder, and would add GRDB to the fuzz build.
        .target(
            name: "WalletCore",
            dependencies: [
                "OfflineNotes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Links/WalletCore"
        ),
        // The server's strict JSON pre-check alone (a link to
        // Sources/Issuer/IssuerHTTP/StrictJSON.swift, which imports nothing): IssuerHTTP would
        // bring Hummingbird, NIO and PostgresNIO into the fuzz build.
        .target(
            name: "StrictJSON",
            path: "Links/StrictJSON"
        ),
        // The API's schema types as the generator wrote them for the project's openapi.yaml
        // (Types+Components*.swift, copied by scripts/fuzz).
        .target(
            name: "WalletAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Generated/WalletAPI"
        ),
        .target(
            name: "Ethereum",
            dependencies: ["CSecp256k1"],
            path: "Links/Ethereum"
        ),
        .target(
            name: "EthereumRPC",
            dependencies: ["Ethereum"],
            path: "Links/EthereumRPC"
        ),
        .systemLibrary(name: "CSecp256k1", path: "Links/CSecp256k1", pkgConfig: "libsecp256k1"),
    ],
    swiftLanguageModes: [.v6]
)
