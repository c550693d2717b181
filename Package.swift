// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mr-replay",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mr-replay", targets: ["mr-replay"]),
        .executable(name: "mr-collector", targets: ["mr-collector"]),
        .library(name: "MetaRouter", targets: ["MetaRouter"]),
        .library(name: "Collector", targets: ["Collector"]),
        .library(name: "ReplayKit", targets: ["ReplayKit"]),
        .library(name: "JSONCore", targets: ["JSONCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.10.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // Debian's libyaml (apt-get install -y libyaml-dev).
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // Debian's SQLite (apt-get install -y libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Debian's libdeflate (apt-get install -y libdeflate-dev): gzip for request bodies.
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .target(name: "JSONCore"),
        .target(
            name: "MetaRouter",
            dependencies: [
                "JSONCore",
                "CDeflate",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Collector",
            dependencies: [
                "JSONCore",
                "CSQLite",
                "CDeflate",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        .target(
            name: "ReplayKit",
            dependencies: [
                "JSONCore",
                "MetaRouter",
                "Collector",
                "CYAML",
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "mr-replay",
            dependencies: [
                "ReplayKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "mr-collector",
            dependencies: [
                "Collector",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "JSONCoreTests", dependencies: ["JSONCore"]),
        .testTarget(name: "MetaRouterTests", dependencies: ["MetaRouter", "Collector",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "CollectorTests", dependencies: ["Collector", "JSONCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .testTarget(name: "ReplayKitTests", dependencies: ["ReplayKit", "Collector"]),
    ]
)
