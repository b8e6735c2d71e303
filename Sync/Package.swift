// swift-tools-version:6.1
import PackageDescription

/// Swift 6 language mode everywhere, with the upcoming features the core package relies on.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

// CofferSync is its own package so that users of the store alone, and the core's debug, TSan
// and fuzz builds, never compile postgres-nio and its swift-nio graph (DESIGN.md here).
let package = Package(
    name: "CofferSync",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "CofferSync", targets: ["CofferSync"]),
        .executable(name: "coffer-sync", targets: ["coffer-sync"]),
        .executable(name: "coffer-sync-bench", targets: ["coffer-sync-bench"]),
    ],
    dependencies: [
        .package(name: "Coffer", path: ".."),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // Already in the graph through postgres-nio; named for its lock (CofferSync) and the tests' TCP proxy.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
    ],
    targets: [
        .target(
            name: "CofferSync",
            dependencies: [
                .product(name: "Coffer", package: "Coffer"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "coffer-sync",
            dependencies: [
                "CofferSync",
                .product(name: "Coffer", package: "Coffer"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The sync benchmark (S1-S3, BENCHMARKS.md); run by Sync/scripts/bench.sh, not by CI.
        .executableTarget(
            name: "coffer-sync-bench",
            dependencies: [
                "CofferSync",
                .product(name: "Coffer", package: "Coffer"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CofferSyncTests",
            dependencies: [
                "CofferSync",
                // The device-run child's operations, digest and generator, which the tests model.
                "coffer-sync",
                .product(name: "Coffer", package: "Coffer"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The documentation plugin is only needed to build the DocC catalog (scripts/ci/docs.sh sets
// COFFER_DOCS), so ordinary builds do not resolve it.
if Context.environment["COFFER_DOCS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    )
}
