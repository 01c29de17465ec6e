// swift-tools-version: 6.2
import PackageDescription

// Where the runtime's default transports are SwiftNIO's; on Apple platforms they are URLSession's and
// NIO is built only for an app that asks for `NIOChannelTransports`.
let nioDefaultPlatforms: [Platform] = [.linux, .android, .windows, .openbsd]

let package = Package(
    name: "swift-channelgen",
    // The runtime sets the floor, iOS 16 / tvOS 16 / watchOS 9 / macOS 13: `Clock` and `Duration` (every
    // delay and timeout runs on an injected clock) and swift-websocket's `WSClient` (the NIO adapter).
    // The emulator runs on SwiftNIO alone and jwt-kit (macOS 13), so it does not raise it.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .executable(name: "channelgen", targets: ["channelgen"]),
        .executable(name: "appsync-emulator", targets: ["appsync-emulator"]),
        .executable(name: "vortex-demo", targets: ["vortex-demo"]),
        .executable(name: "job-demo", targets: ["job-demo"]),
        .library(name: "AppSyncEmulator", targets: ["AppSyncEmulator"]),
        .plugin(name: "ChannelGenBuildPlugin", targets: ["ChannelGenBuildPlugin"]),
        .plugin(name: "ChannelGenCommandPlugin", targets: ["ChannelGenCommandPlugin"]),
        .library(name: "ChannelRuntime", targets: ["ChannelRuntime"]),
        .library(name: "ChannelTransports", targets: ["ChannelTransports"]),
        .library(name: "AppSyncRuntime", targets: ["AppSyncRuntime"]),
        .library(name: "ChannelStreams", targets: ["ChannelStreams"]),
        .library(name: "SSERuntime", targets: ["SSERuntime"]),
        .library(name: "URLSessionChannelTransports", targets: ["URLSessionChannelTransports"]),
        .library(name: "NIOChannelTransports", targets: ["NIOChannelTransports"]),
        .library(name: "ChannelRuntimeTesting", targets: ["ChannelRuntimeTesting"]),
        .library(name: "VortexEvents", targets: ["VortexEvents"]),
        .library(name: "VortexEventsTesting", targets: ["VortexEventsTesting"]),
        .library(name: "EnrichmentJobs", targets: ["EnrichmentJobs"]),
    ],
    // The embedded emulator's token signing (jwt-kit) is a trait, on by
    // default so `swift run vortex-demo` and `swift test` work here; an app that depends on the
    // runtime lists `traits: []` and those packages are neither resolved nor built for it.
    traits: [
        .trait(name: "Emulator", description: "The local AppSync Events emulator (AppSyncEmulator, appsync-emulator, the demo's embedded server)."),
        .default(enabledTraits: ["Emulator"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` for the DocC catalogs (a command plugin only).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libyaml from the system: apt `libyaml-dev`, brew `libyaml`.
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // Generator pipeline, one folder per stage: Load → Resolve → Translate (ChannelSpec, spec → IR),
        // Structure → Render (ChannelCodegen, IR → Swift declarations as values → text).
        .target(name: "ChannelSpec", dependencies: ["CYaml", "ChannelNaming"]),
        // The channel naming rules of each transport, shared by the generator, the runtime and the
        // emulator. No dependencies, so the generator tool stays light.
        .target(name: "ChannelNaming"),
        .target(name: "ChannelCodegen", dependencies: ["ChannelSpec", "ChannelNaming"]),
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

        // The contract a wire adapter implements (`WebSocketTransport`, `EventStreamTransport`,
        // `HTTPPostClient`, `TransportTasks`): for adapter authors, not apps, so it is a module of its
        // own and ChannelRuntime's API is what an app reads. Foundation only.
        .target(name: "ChannelTransports"),

        // What generated code targets: channel templates, validated parameters, the subscription
        // and event-source protocols; and the transport-neutral core every transport shares (the
        // connection state machine, the typed event hub, reconnect policy, metrics). Foundation,
        // swift-log and swift-metrics' API only, so generated code stays cheap to compile.
        .target(
            name: "ChannelRuntime",
            dependencies: [
                "ChannelNaming", "ChannelTransports",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Stream operators for apps (coalesce by key; debounce and friends from swift-async-algorithms),
        // an add-on so generated code and the runtime do not pay for them.
        .target(
            name: "ChannelStreams",
            dependencies: ["ChannelRuntime", .product(name: "AsyncAlgorithms", package: "swift-async-algorithms")]
        ),
        // The wire adapters: WebSocket, event stream and HTTP POST clients behind the protocols in
        // ChannelTransports (`WebSocketTransport`, `EventStreamTransport`, `HTTPPostClient`). The
        // URLSession ones need Foundation alone and are the default on Apple platforms; the SwiftNIO
        // ones (swift-websocket's WSClient, NIO SSL) are the default elsewhere and a product of their
        // own, so an Apple app builds NIO only if it asks for these.
        .target(name: "URLSessionChannelTransports", dependencies: ["ChannelRuntime", "ChannelTransports"]),
        .target(
            name: "NIOChannelTransports",
            dependencies: [
                "ChannelRuntime", "ChannelTransports",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Reads the server certificate's signature algorithm and key size (TLSClientPolicy).
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
            ]
        ),

        // The AppSync Events implementation: the protocol codec, the connection (reconnect,
        // keep-alive, auth) and HTTP publishing, over the WebSocket transports above. The typed event
        // hub generated notifiers run on is ChannelRuntime's, shared with SSERuntime.
        .target(
            name: "AppSyncRuntime",
            dependencies: [
                "ChannelRuntime", "ChannelTransports", "URLSessionChannelTransports",
                .target(name: "NIOChannelTransports", condition: .when(platforms: nioDefaultPlatforms)),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The second transport: Server-Sent Events from a Mercure hub (one stream, many channels,
        // Last-Event-ID resume) on the transport-neutral core (authorization included); it does
        // not depend on AppSyncRuntime.
        .target(
            name: "SSERuntime",
            dependencies: [
                "ChannelRuntime", "ChannelTransports", "URLSessionChannelTransports",
                .target(name: "NIOChannelTransports", condition: .when(platforms: nioDefaultPlatforms)),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Test doubles for apps' own tests and this package's: a manual clock and an in-memory
        // WebSocket transport whose other end the test scripts.
        .target(name: "ChannelRuntimeTesting", dependencies: ["ChannelRuntime", "ChannelTransports"]),

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
            dependencies: ["VortexEvents", "ChannelRuntime", "ChannelRuntimeTesting"],
            exclude: ["channelgen.yaml"],
            plugins: ["ChannelGenBuildPlugin"]
        ),

        // Job streams over Server-Sent Events (`spec/enrichment-jobs.asyncapi.yaml`): the second example client.
        .target(
            name: "EnrichmentJobs",
            dependencies: ["ChannelRuntime"],
            exclude: ["channelgen.yaml"],
            plugins: ["ChannelGenBuildPlugin"]
        ),

        // A local AppSync Events service (WebSocket + HTTP publish) for offline development and tests.
        .target(
            name: "AppSyncEmulator",
            dependencies: [
                "ChannelNaming",
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["Emulator"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "appsync-emulator",
            dependencies: ["AppSyncEmulator", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The README's first command: the generated client against the embedded emulator (or a real API).
        .executableTarget(
            name: "vortex-demo",
            dependencies: [
                "VortexEvents", "AppSyncRuntime", "SSERuntime", "AppSyncEmulator", "ChannelTransports", "NIOChannelTransports", "URLSessionChannelTransports",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // A job stream end to end: the generated EnrichmentNotifier over SSE own streams.
        .executableTarget(
            name: "job-demo",
            dependencies: [
                "EnrichmentJobs", "SSERuntime", "AppSyncEmulator", "ChannelTransports", "NIOChannelTransports",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Runs child programs from tests without blocking the cooperative thread pool.
        .target(name: "ChildProcessSupport", path: "Tests/ChildProcessSupport"),
        // A seeded random generator the fuzz and random-input tests share.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        .testTarget(name: "ChannelSpecTests", dependencies: ["ChannelSpec", "SeededRandom"]),
        .testTarget(
            name: "ChannelCodegenTests",
            // `channelgen` so the CLI is built for the tests that run it; `ChannelRuntime` so generated
            // code can be type-checked against the runtime module.
            dependencies: ["ChannelSpec", "ChannelCodegen", "ChannelNaming", "channelgen", "ChannelRuntime", "ChildProcessSupport", "SeededRandom"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ChannelRuntimeTests",
            dependencies: [
                "ChannelRuntime",
                "ChannelRuntimeTesting",
                "ChannelNaming",
                "ChannelStreams",
                "SeededRandom",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                "AppSyncRuntime", "SSERuntime", "ChannelTransports", "NIOChannelTransports",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "SSERuntimeTests", dependencies: ["SSERuntime", "ChannelRuntime", "ChannelTransports", "NIOChannelTransports", "SeededRandom"]),
        .testTarget(
            name: "VortexEventsTests", dependencies: ["VortexEvents", "VortexEventsTesting", "ChannelRuntime", "AppSyncRuntime", "ChannelRuntimeTesting", "SeededRandom"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "VortexEvents", "EnrichmentJobs", "AppSyncRuntime", "SSERuntime", "AppSyncEmulator", "ChannelRuntime", "ChannelRuntimeTesting",
                "vortex-demo", "job-demo", "ChildProcessSupport",
                "ChannelTransports", "NIOChannelTransports", "URLSessionChannelTransports",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
