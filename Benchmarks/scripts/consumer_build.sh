#!/usr/bin/env bash
# The README recipe as a new user builds it: a package whose generated client uses ChannelRuntime
# (with the build plugin) and whose app target adds AppSyncRuntime. Prints the packages pinned in its
# Package.resolved, the modules its first clean debug build compiled, and that build's wall time.
#
#   Benchmarks/scripts/consumer_build.sh <swift-channelgen checkout> <work dir> [traits]
#
# With a third argument the dependency reads `traits: [<it>]` (`traits ""` for none, as the README's
# recipe has it); without, as before the Emulator trait existed. PRODUCT=ShopApp builds only the app
# (as Xcode does) instead of `swift build`'s every target of every package. APP=urlsession makes the
# app use ChannelRuntime and the URLSession adapters alone: on Linux the nearest build to what an app
# on Apple platforms compiles, where AppSyncRuntime links no NIO.
set -euo pipefail
checkout=$(cd "$1" && pwd)
work=$2
traits=""
if [ $# -ge 3 ]; then
    if [ -z "$3" ]; then traits=", traits: []"; else traits=", traits: [\"$3\"]"; fi
fi
app_product=AppSyncRuntime
if [ "${APP:-}" = urlsession ]; then app_product=URLSessionChannelTransports; fi
rm -rf "$work" && mkdir -p "$work/Sources/ShopEvents" "$work/Sources/ShopApp" "$work/spec"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Shop",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "$checkout"$traits)],
    targets: [
        .target(
            name: "ShopEvents",
            dependencies: [.product(name: "ChannelRuntime", package: "$(basename "$checkout")")],
            exclude: ["channelgen.yaml"],
            plugins: [.plugin(name: "ChannelGenBuildPlugin", package: "$(basename "$checkout")")]
        ),
        .executableTarget(
            name: "ShopApp",
            dependencies: ["ShopEvents", .product(name: "$app_product", package: "$(basename "$checkout")")]
        ),
    ]
)
SWIFT
cat > "$work/Sources/ShopEvents/channelgen.yaml" <<'YAML'
spec: ../../spec/shop.asyncapi.yaml
notifier: ShopNotifier
YAML
cat > "$work/spec/shop.asyncapi.yaml" <<'YAML'
asyncapi: 3.0.0
info: { title: Shop, version: 1.0.0 }
channels:
  stock:
    address: shop/stock/{sku}
    parameters: { sku: {} }
    messages:
      changed: { payload: { $ref: '#/components/schemas/Stock' } }
operations:
  stockChanged:
    action: receive
    channel: { $ref: '#/channels/stock' }
components:
  schemas:
    Stock:
      type: object
      required: [sku, level]
      properties:
        sku: { type: string }
        level: { type: integer }
YAML
echo '@_exported import ChannelRuntime' > "$work/Sources/ShopEvents/ShopEvents.swift"
if [ "${APP:-}" = urlsession ]; then
cat > "$work/Sources/ShopApp/main.swift" <<'SWIFT'
import ChannelRuntime
import Foundation
import URLSessionChannelTransports

let transport: any EventStreamTransport = URLSessionEventStreamTransport()
let client: any HTTPPostClient = URLSessionPostClient()
print(transport, client)
SWIFT
else
cat > "$work/Sources/ShopApp/main.swift" <<'SWIFT'
import AppSyncRuntime
import ShopEvents

let endpoint = try ChannelEndpoint(http: "https://abc123.appsync-api.eu-west-1.amazonaws.com/event")
let connection = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("da2-example")))
let notifier = ShopNotifier(source: ChannelEventHub(connection: connection))
_ = notifier
SWIFT
fi
cd "$work"
start=$(date +%s)
swift package resolve >/dev/null 2>&1
resolved=$(date +%s)
swift build ${PRODUCT:+--product "$PRODUCT"} 2>&1 | grep -E "error|Compiling|Build complete" | tail -3
end=$(date +%s)
bin=$(swift build --show-bin-path)
echo "pins: $(grep -c '"identity"' Package.resolved 2>/dev/null || echo 0)"
grep '"identity"' Package.resolved | sed 's/.*: "\(.*\)".*/  \1/' | tr '\n' ' '; echo
# What was compiled (SwiftPM also makes folders for targets it planned and never compiled).
echo "Swift modules compiled: $(ls "$bin"/Modules | grep -c '\.swiftmodule$')"
ls "$bin"/Modules | grep '\.swiftmodule$' | sed 's/\.swiftmodule$//' | tr '\n' ' '; echo
echo "resolve: $((resolved - start)) s, first build: $((end - resolved)) s"
