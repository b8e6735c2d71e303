// swift-tools-version:6.1
import PackageDescription

/// Swift 6 language mode everywhere, with the upcoming features the codebase relies on.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Coffer",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Coffer", targets: ["Coffer"]),
        .executable(name: "coffer", targets: ["coffer"]),
        .executable(name: "coffer-bench", targets: ["coffer-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        // The system's libcrypto (OpenSSL; SQLCipher already links it), for AES-256-GCM on Linux.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CofferCipher",
            dependencies: ["CLibCrypto"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "CofferSQLite",
            dependencies: ["CSQLCipher"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Coffer",
            dependencies: [
                "CofferSQLite",
                "CZlib",
                .target(name: "CofferCipher", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: [
                "Security/KEYFILE-FORMAT.md", "Serialization/BLOB-FORMAT.md", "Serialization/Binary/BINARY-FORMAT.md",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CofferTestSupport",
            dependencies: ["Coffer", "CofferSQLite"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "coffer",
            dependencies: [
                "Coffer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The C baseline of the benchmark lives outside Sources/ on purpose: it is the one
        // place besides CofferSQLite that calls the SQLCipher C API, and it is not part of
        // the library.
        .target(
            name: "CBaseline",
            dependencies: ["CSQLCipher"],
            path: "Benchmarks/CBaseline",
            cSettings: [.define("SQLITE_HAS_CODEC", to: "1")],
            linkerSettings: [.linkedLibrary("sqlcipher")]
        ),
        // The entry point the bench, fixture and stress tools share.
        .target(
            name: "CofferToolSupport",
            dependencies: ["Coffer", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "coffer-bench",
            dependencies: [
                "Coffer",
                "CofferToolSupport",
                "CBaseline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The manifest's JSON value type, shared by the fixture generator and the compliance suite.
        .target(name: "CofferFixtureSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "coffer-fixtures",
            dependencies: [
                "CofferFixtureSupport",
                "CofferToolSupport",
                "Coffer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The crash-consistency child the reliability tests launch and kill (not a product).
        .executableTarget(
            name: "coffer-stress",
            dependencies: [
                "Coffer",
                "CofferToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // The code of README.md and of the DocC articles (GettingStarted.md, and the others in
        // Examples/Articles, one file per article), compiled and run by CofferDocumentationTests,
        // which also checks that the documents still show exactly this code.
        .executableTarget(
            name: "readme-example", dependencies: ["Coffer"], path: "Examples/README", swiftSettings: swiftSettings),
        .executableTarget(
            name: "getting-started-example", dependencies: ["Coffer"], path: "Examples/GettingStarted",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "articles-example", dependencies: ["Coffer"], path: "Examples/Articles", swiftSettings: swiftSettings),
        .testTarget(
            name: "CofferReliabilityTests",
            dependencies: ["Coffer", "CofferSQLite", "CofferTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CofferCLITests",
            // `coffer` itself for the unit tests of its pure parts (progress throttling, --json detection).
            dependencies: ["Coffer", "CofferTestSupport", "coffer"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CofferTests",
            dependencies: [
                "Coffer",
                "CofferSQLite",
                "CofferTestSupport",
                .target(name: "CofferCipher", condition: .when(platforms: [.linux])),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Extensions written the way a user writes them: `import Coffer` without `@testable`, so
        // everything they do goes through the public extension protocol.
        .testTarget(
            name: "CofferExtensionKitTests",
            dependencies: ["Coffer", "CofferTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CofferDocumentationTests",
            dependencies: ["CofferTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CofferComplianceTests",
            dependencies: [
                "CofferFixtureSupport", "Coffer", "CofferTestSupport",
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

// The libFuzzer targets (Fuzz/, RELIABILITY.md "Fuzzing") are only declared when COFFER_FUZZ is set:
// they must be built with `-sanitize=fuzzer` (libFuzzer supplies `main`), which scripts/ci/fuzz.sh
// does in its own scratch path, so ordinary builds and `swift test` never see them.
if Context.environment["COFFER_FUZZ"] != nil {
    let fuzzers = [
        ("fuzz-blob-decoder", "BlobDecoder", [Target.Dependency.product(name: "Crypto", package: "swift-crypto")]),
        ("fuzz-key-file", "KeyFile", []),
        ("fuzz-database-query", "DatabaseQuery", ["CofferSQLite"]),
        ("fuzz-binary-codec", "BinaryCodec", []),
    ]
    package.targets += [
        .target(name: "CFuzzDriver", path: "Fuzz/Driver"),
        .target(
            name: "CofferFuzzSupport", dependencies: ["CFuzzDriver"], path: "Fuzz/Support", swiftSettings: swiftSettings
        ),
    ]
    for (name, folder, extra) in fuzzers {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["Coffer", "CofferFuzzSupport"] + extra, path: "Fuzz/\(folder)",
                swiftSettings: swiftSettings))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
