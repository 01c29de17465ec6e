// swift-tools-version: 6.1
// Benchmarks for swift-channelgen: a separate package so the main package stays light.
// See README.md for the commands and the results.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name, which depends on where the repository was cloned.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "channelgen-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The 20-message channel of `runtime-bench route`, generated at build time by the plugin.
        .target(
            name: "RoutingEvents",
            dependencies: [.product(name: "ChannelRuntime", package: root)],
            plugins: [.plugin(name: "ChannelGenBuildPlugin", package: root)]
        ),
        .executableTarget(
            name: "runtime-bench",
            dependencies: [
                "RoutingEvents",
                .product(name: "VortexEvents", package: root),
                .product(name: "EnrichmentJobs", package: root),
                .product(name: "AppSyncRuntime", package: root),
                .product(name: "AppSyncEmulator", package: root),
                .product(name: "SSERuntime", package: root),
                .product(name: "ChannelTransports", package: root),
                .product(name: "NIOChannelTransports", package: root),
                .product(name: "URLSessionChannelTransports", package: root),
                .product(name: "ChannelRuntimeTesting", package: root),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
