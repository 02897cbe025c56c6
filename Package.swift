// swift-tools-version:6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode with strict concurrency,
/// and upcoming features that keep the code honest.
let sharedSwiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "cardsync",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VCardKit", targets: ["VCardKit"]),
        .library(name: "SampleGenerator", targets: ["SampleGenerator"]),
        .executable(name: "cardsync", targets: ["cardsync"]),
        .executable(name: "cardsync-bench", targets: ["cardsync-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // Formats: model, text reader/writer, version conversion, canonical form. Pure: bytes in, values out.
        .target(
            name: "VCardKit",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: sharedSwiftSettings
        ),
        // Seeded, deterministic, realistic address books with duplicate labels.
        .target(
            name: "SampleGenerator",
            swiftSettings: sharedSwiftSettings
        ),
        // The command-line tool: ArgumentParser commands only.
        .executableTarget(
            name: "cardsync",
            dependencies: [
                "VCardKit",
                "SampleGenerator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Release-build benchmark: prints one JSON line per figure.
        .executableTarget(
            name: "cardsync-bench",
            dependencies: ["VCardKit", "SampleGenerator"],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: ["VCardKit"],
            path: "Tests/TestSupport",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "VCardKitTests",
            dependencies: ["VCardKit", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "SampleGeneratorTests",
            dependencies: ["SampleGenerator", "VCardKit", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["VCardKit", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: sharedSwiftSettings
        ),
    ]
)
