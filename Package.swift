// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-channelgen",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .executable(name: "channelgen", targets: ["channelgen"]),
        .plugin(name: "ChannelGenBuildPlugin", targets: ["ChannelGenBuildPlugin"]),
        .plugin(name: "ChannelGenCommandPlugin", targets: ["ChannelGenCommandPlugin"]),
        .library(name: "ChannelRuntime", targets: ["ChannelRuntime"]),
        .library(name: "AppSyncRuntime", targets: ["AppSyncRuntime"]),
        .library(name: "VortexEvents", targets: ["VortexEvents"]),
        .library(name: "VortexEventsTesting", targets: ["VortexEventsTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    ],
    targets: [
        // libyaml from the system: apt `libyaml-dev`, brew `libyaml`.
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // Generator pipeline: load → resolve → validate (ChannelSpec), render (ChannelCodegen).
        .target(name: "ChannelSpec", dependencies: ["CYaml"]),
        .target(name: "ChannelCodegen", dependencies: ["ChannelSpec"]),
        .executableTarget(
            name: "channelgen",
            dependencies: [
                "ChannelSpec",
                "ChannelCodegen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .plugin(
            name: "ChannelGenBuildPlugin",
            capability: .buildTool(),
            dependencies: ["channelgen"]
        ),
        .plugin(
            name: "ChannelGenCommandPlugin",
            capability: .command(
                intent: .custom(
                    verb: "generate-channels",
                    description: "Regenerate Generated/<Target>/ for every target with a channelgen.yaml"
                ),
                permissions: [
                    .writeToPackageDirectory(reason: "Writes the reviewed copy of generated code into Generated/")
                ]
            ),
            dependencies: ["channelgen"]
        ),

        // What generated code targets: channel templates, validated parameters, the subscription
        // and event-source protocols. Foundation only, so generated code stays cheap to compile.
        .target(name: "ChannelRuntime"),
        // The AppSync Events implementation: protocol codec, WebSocket transport, the connection
        // (reconnect, keep-alive, auth) and the typed event hub generated notifiers run on.
        .target(
            name: "AppSyncRuntime",
            dependencies: [
                "ChannelRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "WSClient", package: "swift-websocket"),
            ]
        ),

        // The Vortex client: a config file only; every type comes from the plugin.
        .target(
            name: "VortexEvents",
            dependencies: ["ChannelRuntime"],
            exclude: ["channelgen.yaml"],
            plugins: ["ChannelGenBuildPlugin"]
        ),
        // The generated mock notifier, for app tests.
        .target(
            name: "VortexEventsTesting",
            dependencies: ["VortexEvents", "ChannelRuntime"],
            exclude: ["channelgen.yaml"],
            plugins: ["ChannelGenBuildPlugin"]
        ),

        .testTarget(name: "ChannelSpecTests", dependencies: ["ChannelSpec"]),
        .testTarget(
            name: "ChannelCodegenTests",
            // `channelgen` so the CLI is built for the tests that run it; `ChannelRuntime` so generated
            // code can be type-checked against the runtime module.
            dependencies: ["ChannelSpec", "ChannelCodegen", "channelgen", "ChannelRuntime"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ChannelRuntimeTests",
            dependencies: [
                "ChannelRuntime",
                "AppSyncRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "VortexEventsTests", dependencies: ["VortexEvents", "VortexEventsTesting", "ChannelRuntime", "AppSyncRuntime"]),
    ],
    swiftLanguageModes: [.v6]
)
