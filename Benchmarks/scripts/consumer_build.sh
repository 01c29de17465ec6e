#!/usr/bin/env bash
# The README recipe as a new user builds it: a package whose generated client uses ChannelRuntime
# (with the build plugin) and whose app target adds AppSyncRuntime. Prints the packages pinned in its
# Package.resolved, the modules its first clean debug build compiled, and that build's wall time.
#
#   Benchmarks/scripts/consumer_build.sh <swift-channelgen checkout> <work dir> [traits]
#
# With a third argument the dependency reads `traits: [<it>]` (`traits ""` for none, as the README's
# recipe has it); without, as before the Emulator trait existed.
set -euo pipefail
checkout=$(cd "$1" && pwd)
work=$2
traits=""
if [ $# -ge 3 ]; then
    if [ -z "$3" ]; then traits=", traits: []"; else traits=", traits: [\"$3\"]"; fi
fi
rm -rf "$work" && mkdir -p "$work/Sources/ShopEvents" "$work/Sources/ShopApp" "$work/spec"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Shop",
    platforms: [.macOS(.v14), .iOS(.v17)],
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
            dependencies: ["ShopEvents", .product(name: "AppSyncRuntime", package: "$(basename "$checkout")")]
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
cat > "$work/Sources/ShopApp/main.swift" <<'SWIFT'
import AppSyncRuntime
import ShopEvents

let endpoint = try AppSyncEndpoint(http: "https://abc123.appsync-api.eu-west-1.amazonaws.com/event")
let connection = AppSyncConnection(configuration: AppSyncConfiguration(endpoint: endpoint, authorization: .apiKey("da2-example")))
let notifier = ShopNotifier(source: ChannelEventHub(connection: connection))
_ = notifier
SWIFT
cd "$work"
start=$(date +%s)
swift package resolve >/dev/null 2>&1
resolved=$(date +%s)
swift build 2>&1 | grep -E "error|Compiling|Build complete" | tail -3
end=$(date +%s)
bin=$(swift build --show-bin-path)
echo "pins: $(grep -c '"identity"' Package.resolved 2>/dev/null || echo 0)"
grep '"identity"' Package.resolved | sed 's/.*: "\(.*\)".*/  \1/' | tr '\n' ' '; echo
echo "modules built: $(ls -d "$bin"/*.build 2>/dev/null | wc -l)"
ls -d "$bin"/*.build | xargs -n1 basename | sed 's/\.build$//' | tr '\n' ' '; echo
echo "resolve: $((resolved - start)) s, first build: $((end - resolved)) s"
