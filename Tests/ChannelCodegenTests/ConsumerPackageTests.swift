import Foundation
import Testing

/// The build plugin as a user meets it: a fresh package that depends on this checkout, with its
/// own spec. A schema file in a sibling folder, `$ref`'d after the first build, must regenerate the
/// client when it is edited (the plugin declares every file the last generation read).
@Suite("Consumer package", .serialized)
struct ConsumerPackageTests {
    static let spec = """
        asyncapi: 3.0.0
        info: {title: Shop events, version: 1.0.0}
        channels:
          orders:
            address: shop/user/{userId}/orders
            parameters: {userId: {description: The shopper.}}
            messages:
              placed:
                name: order/placed
                payload: {$ref: '#/components/schemas/OrderPlaced'}
        operations:
          orderValues:
            action: receive
            channel: {$ref: '#/channels/orders'}
        components:
          schemas:
            OrderPlaced:
              type: object
              required: [eventType]
              properties:
                eventType: {type: string}

        """

    /// Writes the consumer package; returns its folder.
    private func makeConsumer() throws -> URL {
        let work = try TestSupport.temporaryDirectory()
        // A path dependency is known by its folder's name: reach this checkout as `swift-channelgen`.
        try FileManager.default.createDirectory(at: work.appendingPathComponent("deps"), withIntermediateDirectories: true)
        let root = work.appendingPathComponent("deps/swift-channelgen").path
        try FileManager.default.createSymbolicLink(atPath: root, withDestinationPath: TestSupport.packageRoot.path)
        try """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "Shop",
                platforms: [.macOS(.v14), .iOS(.v17)],
                dependencies: [.package(path: "\(root)")],
                targets: [
                    .target(
                        name: "ShopEvents",
                        dependencies: [.product(name: "ChannelRuntime", package: "swift-channelgen")],
                        exclude: ["channelgen.yaml"],
                        plugins: [.plugin(name: "ChannelGenBuildPlugin", package: "swift-channelgen")]
                    ),
                ]
            )

            """.write(to: work.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let target = work.appendingPathComponent("Sources/ShopEvents")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try "spec: ../../spec/shop.asyncapi.yaml\n".write(to: target.appendingPathComponent("channelgen.yaml"), atomically: true, encoding: .utf8)
        try "@_exported import ChannelRuntime\n".write(to: target.appendingPathComponent("ShopEvents.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("spec"), withIntermediateDirectories: true)
        try Self.spec.write(to: work.appendingPathComponent("spec/shop.asyncapi.yaml"), atomically: true, encoding: .utf8)
        return work
    }

    private func build(_ package: URL) async throws -> String {
        let result = try await TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build", "--target", "ShopEvents"], in: package)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let enumerator = FileManager.default.enumerator(at: package.appendingPathComponent(".build/plugins/outputs"), includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == "Models.swift", url.path.contains("ShopEvents") { return try TestSupport.contents(url) }
        }
        Issue.record("no generated Models.swift under .build/plugins/outputs")
        return ""
    }

    @Test func editingARefdFileInASiblingFolderRegenerates() async throws {
        let package = try makeConsumer()
        defer { try? FileManager.default.removeItem(at: package) }
        let first = try await build(package)
        #expect(first.contains("public struct OrderPlaced"))

        // Added after the first build: a shared schema in a sibling folder of spec/.
        let shared = package.appendingPathComponent("shared-schemas")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let extra = shared.appendingPathComponent("extra.yaml")
        try "components:\n  schemas:\n    Basket:\n      type: object\n      properties:\n        itemCount: {type: integer}\n"
            .write(to: extra, atomically: true, encoding: .utf8)
        let spec = package.appendingPathComponent("spec/shop.asyncapi.yaml")
        try (Self.spec + "        basket: {$ref: '../shared-schemas/extra.yaml#/components/schemas/Basket'}\n")
            .write(to: spec, atomically: true, encoding: .utf8)
        let second = try await build(package)
        #expect(second.contains("public var itemCount: Int?"))

        try "components:\n  schemas:\n    Basket:\n      type: object\n      properties:\n        itemCount: {type: integer}\n        total: {type: number}\n"
            .write(to: extra, atomically: true, encoding: .utf8)
        let third = try await build(package)
        #expect(third.contains("public var total: Double?"), "the edit to shared-schemas/extra.yaml did not regenerate")
    }
}
