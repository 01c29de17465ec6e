import AppSyncEmulator
import ArgumentParser
import Foundation

/// `swift run appsync-emulator --port 0 --api-key da2-local --jwt-secret s3cret --namespace vortex-app`
@main
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appsync-emulator",
        abstract: "Run a local AWS AppSync Events service on 127.0.0.1 (WebSocket + HTTP publish).")

    @Option(help: "Port to listen on; 0 lets the OS choose one.")
    var port = 0

    @Option(name: .customLong("api-key"), help: "An accepted API key (repeatable).")
    var apiKeys: [String] = ["da2-local-emulator"]

    @Option(help: "HS256 secret for JWT user tokens; a token's sub must match the {userId} of user channels.")
    var jwtSecret: String?

    @Option(name: .customLong("namespace"), help: "A channel namespace (repeatable).")
    var namespaces: [String] = ["default", "vortex-app"]

    @Option(help: "Seconds between keep-alive ('ka') messages.")
    var keepAliveInterval: Double = 60

    @Option(help: "Print a JWT for this user id at start (needs --jwt-secret).")
    var tokenFor: String?

    func run() async throws {
        #if Emulator
        let emulator = AppSyncEmulator(configuration: EmulatorConfiguration(
            namespaces: Set(namespaces), apiKeys: Set(apiKeys), jwtSecret: jwtSecret,
            keepAliveInterval: .milliseconds(Int(keepAliveInterval * 1000))))
        let endpoint = try await emulator.start(port: port)
        print("AppSync Events emulator listening")
        print("  HTTP endpoint: \(endpoint.absoluteString)")
        print("  WebSocket:     ws://\(endpoint.host ?? "127.0.0.1"):\(endpoint.port ?? port)/event/realtime")
        print("  Console:       \(endpoint.deletingLastPathComponent().appendingPathComponent("console").absoluteString)")
        print("  API keys:      \(apiKeys.joined(separator: ", "))")
        if let tokenFor {
            print("  JWT for \(tokenFor): \(try await emulator.token(forUser: tokenFor))")
        }
        fflush(nil)  // flush stdout so scripts reading the URL see it at once
        // Serve until the process is interrupted.
        while true { try await Task.sleep(for: .seconds(3600)) }
        #else
        throw ValidationError(EmulatorTrait.missingMessage)
        #endif
    }
}
