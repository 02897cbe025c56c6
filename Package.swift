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
        .library(name: "JSONText", targets: ["JSONText"]),
        .library(name: "VCardKit", targets: ["VCardKit"]),
        .library(name: "SampleGenerator", targets: ["SampleGenerator"]),
        .library(name: "VCardXML", targets: ["VCardXML"]),
        .library(name: "ContactStore", targets: ["ContactStore"]),
        .library(name: "CouchServer", targets: ["CouchServer"]),
        .library(name: "CouchClient", targets: ["CouchClient"]),
        .library(name: "SyncEngine", targets: ["SyncEngine"]),
        .library(name: "ContactDiff", targets: ["ContactDiff"]),
        .library(name: "ContactWeb", targets: ["ContactWeb"]),
        .executable(name: "cardsync", targets: ["cardsync"]),
        .executable(name: "cardsync-bench", targets: ["cardsync-bench"]),
        .executable(name: "cardsync-faultproxy", targets: ["cardsync-faultproxy"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // One trait, named: with Hummingbird's two default traits SwiftPM passed their `-D` flags in
        // a random order from one invocation to the next, and every change of order recompiled
        // Hummingbird and HummingbirdCore (104 files) and re-planned the build. We use neither
        // swift-configuration (ConfigurationSupport) nor need it built.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already resolved through AsyncHTTPClient; named so that TLS failures can be told apart
        // (CouchClient) and tests can run a TLS endpoint (TestSupport).
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        // The package's one Base64 (inline PHOTO data, journal lines of cards that are not UTF-8,
        // generated photos): faster than Foundation's on the corpus photos (BENCHMARKS.md).
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
    ],
    targets: [
        // JSON (RFC 8259) for every module that speaks it: a value that keeps number text and
        // member order, a strict parser with line:column errors and limits, a compact writer
        // (sorted keys on request), an incremental reader for documents of any length, and a JSON
        // Schema checker. Imports nothing of ours.
        .target(
            name: "JSONText",
            swiftSettings: sharedSwiftSettings
        ),
        // Formats: model, text reader/writer, version conversion, canonical form. Pure: bytes in, values out.
        .target(
            name: "VCardKit",
            dependencies: [
                "JSONText",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // libxml2, through pkg-config (Debian: libxml2-dev).
        .systemLibrary(
            name: "CLibXML2",
            path: "Sources/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // xCard (RFC 6351) over libxml2: streaming reader, writer, RELAX NG validation.
        .target(
            name: "VCardXML",
            dependencies: ["VCardKit", "CLibXML2"],
            swiftSettings: sharedSwiftSettings
        ),
        // CRC-32 with carry-less multiplication (x86-64), for the journal's line checksums.
        .target(name: "CChecksum", path: "Sources/CChecksum"),
        // The address book: a folder of .vcf files and a JSON-lines journal of every version.
        .target(
            name: "ContactStore",
            dependencies: [
                "CChecksum",
                "JSONText",
                "VCardKit",
                "VCardXML",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // zlib, for the gzip form CouchDB stores compressible attachments in (Debian: zlib1g-dev).
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // What both HTTP servers (`cardsync serve`, `cardsync web`) share: percent-encoding and the
        // TLS certificate and key files.
        .target(
            name: "HTTPServerSupport",
            dependencies: [.product(name: "NIOSSL", package: "swift-nio-ssl")],
            swiftSettings: sharedSwiftSettings
        ),
        // `cardsync serve`: a CouchDB-compatible HTTP endpoint over a local data folder. Knows no vCard.
        .target(
            name: "CouchServer",
            dependencies: [
                "JSONText",
                "HTTPServerSupport",
                // `_replicate` reaches remote databases through the project's own client.
                "CouchClient",
                "CZlib",
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // The CouchDB HTTP API as Swift calls (AsyncHTTPClient): typed errors, retries. Knows no vCard.
        .target(
            name: "CouchClient",
            dependencies: [
                "JSONText",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Two-way sync of an address book with a CouchDB database: the product's main job.
        .target(
            name: "SyncEngine",
            dependencies: [
                "ContactStore",
                "CouchClient",
                "JSONText",
                "VCardKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Comparing contact sets, finding duplicate people, merging them. Reads files and folders;
        // other sources (a CouchDB database, wired by the `cardsync` command) are given to it.
        .target(
            name: "ContactDiff",
            dependencies: ["VCardKit", "ContactStore"],
            swiftSettings: sharedSwiftSettings
        ),
        // `cardsync web`: the address book in a browser (Hummingbird), server-rendered HTML with a
        // strict Content-Security-Policy, CSRF tokens, and edits that change only what was edited.
        .target(
            name: "ContactWeb",
            dependencies: [
                "ContactStore",
                "ContactDiff",
                "VCardKit",
                "VCardXML",
                "JSONText",
                "HTTPServerSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Seeded, deterministic, realistic address books with duplicate labels.
        .target(
            name: "SampleGenerator",
            dependencies: [.product(name: "ExtrasBase64", package: "swift-extras-base64")],
            swiftSettings: sharedSwiftSettings
        ),
        // The command-line tool: ArgumentParser commands only.
        .executableTarget(
            name: "cardsync",
            dependencies: [
                "JSONText",
                "VCardKit",
                "VCardXML",
                "ContactStore",
                "ContactDiff",
                "ContactWeb",
                "CouchServer",
                "CouchClient",
                "SyncEngine",
                "SampleGenerator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // Release-build benchmark: prints one JSON line per figure.
        .executableTarget(
            name: "cardsync-bench",
            dependencies: ["JSONText", "VCardKit", "VCardXML", "SampleGenerator", "ContactStore"],
            swiftSettings: sharedSwiftSettings
        ),
        // A fault-injecting HTTP proxy on the loopback interface, for sync and client tests.
        .target(
            name: "FaultInjection",
            swiftSettings: sharedSwiftSettings
        ),
        // The proxy as a command, for scripts: `cardsync-faultproxy --upstream http://127.0.0.1:5984`.
        .executableTarget(
            name: "cardsync-faultproxy",
            dependencies: [
                "FaultInjection",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        // The invariants each fuzz target checks, shared by the fuzzer and the regression tests.
        .target(
            name: "FuzzChecks",
            dependencies: ["JSONText", "VCardKit", "VCardXML", "ContactStore", "CouchServer"],
            swiftSettings: sharedSwiftSettings
        ),
        // libFuzzer entry points (built by .ci/fuzz.sh with -sanitize=fuzzer), or a replayer of saved inputs.
        .executableTarget(
            name: "cardsync-fuzz",
            dependencies: ["FuzzChecks"],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "VCardKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "JSONTextTests",
            dependencies: ["JSONText", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "VCardKitTests",
            dependencies: ["VCardKit", "JSONText", "SampleGenerator", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "VCardXMLTests",
            dependencies: ["VCardXML", "VCardKit", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ContactStoreTests",
            dependencies: ["ContactStore", "JSONText", "VCardKit", "SampleGenerator", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "CouchServerTests",
            dependencies: [
                "CouchServer",
                "CouchClient",
                "JSONText",
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "CouchClientTests",
            dependencies: ["CouchClient", "CouchServer", "JSONText", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "SyncEngineTests",
            dependencies: [
                "SyncEngine", "ContactStore", "CouchClient", "CouchServer", "JSONText", "VCardKit", "FaultInjection", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ContactDiffTests",
            dependencies: [
                "ContactDiff", "ContactStore", "VCardKit", "SampleGenerator", "TestSupport",
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "ContactWebTests",
            dependencies: [
                "ContactWeb", "ContactStore", "VCardKit", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FaultInjectionTests",
            dependencies: ["FaultInjection", "CouchClient", "CouchServer", "JSONText", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["FuzzChecks", "TestSupport"],
            exclude: ["Inputs"],
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
