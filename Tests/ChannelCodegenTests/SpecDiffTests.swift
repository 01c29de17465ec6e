@testable import ChannelCodegen
import ChannelSpec
import Foundation
import Testing

/// `channelgen diff`'s rules as a table: a base spec, one edit per row, and the changes expected,
/// each as its wire and source verdicts and the Swift symbol it names.
@Suite("Spec diff")
struct SpecDiffTests {
    static let base = """
        asyncapi: 3.0.0
        info:
          title: Shop events
          version: 1.0.0
          x-swift-notifier: ShopNotifier
        channels:
          orders:
            address: shop/user/{userId}/orders
            parameters:
              userId:
                description: The subscriber.
            messages:
              orderChanged:
                name: order/changed
                payload:
                  $ref: '#/components/schemas/Order'
          stock:
            address: shop/region/{region}/stock
            parameters:
              region:
                enum: [eu, us, ap]
            messages:
              stockChanged:
                name: stock/changed
                payload:
                  $ref: '#/components/schemas/Stock'
        operations:
          orderValues:
            action: receive
            channel:
              $ref: '#/channels/orders'
          stockValues:
            action: receive
            channel:
              $ref: '#/channels/stock'
        components:
          schemas:
            Order:
              type: object
              description: An order changed.
              required: [id, status, total]
              properties:
                id: {type: string}
                status:
                  type: string
                  enum: [placed, paid, shipped]
                total: {type: number}
                note: {type: string}
                lines:
                  type: array
                  items:
                    $ref: '#/components/schemas/Line'
            Line:
              type: object
              required: [sku]
              properties:
                sku: {type: string}
                quantity: {type: integer, format: int32}
            Stock:
              type: object
              required: [sku, available]
              properties:
                sku: {type: string}
                available: {type: integer}
"""  // at column 0, so the text keeps its indentation and the edits below match it as written

    struct Expected: CustomStringConvertible {
        var wire: SpecChange.Verdict
        var source: SpecChange.Verdict
        var symbol: String
        var description: String { "\(symbol) wire: \(wire.rawValue) source: \(source.rawValue)" }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var edits: [(String, String)]
        var expected: [(SpecChange.Verdict, SpecChange.Verdict, String)]
        var testDescription: String { name }
    }

    static func row(_ name: String, _ edits: [(String, String)], _ expected: [(SpecChange.Verdict, SpecChange.Verdict, String)]) -> Row {
        Row(name: name, edits: edits, expected: expected)
    }

    static let rows: [Row] = [
        // No-op edits: nothing to report.
        row("identical", [], []),
        row("description edited", [("description: An order changed.", "description: An order changed, reworded.")], []),
        row("info version bumped", [("version: 1.0.0", "version: 1.1.0")], []),
        // The memberwise initializer takes properties in order: `Order(id:status:…)` no longer compiles.
        row("property keys reordered", [("                id: {type: string}\n                status:", "                status:"), ("                total: {type: number}", "                total: {type: number}\n                id: {type: string}")],
            [(.compatible, .breaking, "Order.init")]),
        row("required list reordered", [("required: [id, status, total]", "required: [total, id, status]")], []),
        row("enum values reordered", [("enum: [placed, paid, shipped]", "enum: [shipped, placed, paid]")], []),
        // Same address: the same channel on the wire, and `stockValues()` stays; the `Channels`
        // constant and the subscription type take the new key's name.
        row("channel key renamed, address kept", [("          stock:\n", "          stockMoved:\n"), ("$ref: '#/channels/stock'", "$ref: '#/channels/stockMoved'")],
            [(.compatible, .breaking, "Channels.stock"), (.compatible, .breaking, "StockSubscription")]),
        row("operations reordered", [("""
          orderValues:
            action: receive
            channel:
              $ref: '#/channels/orders'
          stockValues:
            action: receive
            channel:
              $ref: '#/channels/stock'
""", """
          stockValues:
            action: receive
            channel:
              $ref: '#/channels/stock'
          orderValues:
            action: receive
            channel:
              $ref: '#/channels/orders'
""")], []),
        row("flow style to block style", [("sku: {type: string}\n                quantity", "sku:\n                  type: string\n                quantity")], []),
        // Properties.
        row("required property removed", [("required: [id, status, total]", "required: [id, status]"), ("                total: {type: number}\n", "")],
            [(.breaking, .breaking, "Order.total")]),
        row("optional property removed", [("                note: {type: string}\n", "")], [(.compatible, .breaking, "Order.note")]),
        row("optional property added", [("                note: {type: string}", "                note: {type: string}\n                gift: {type: boolean}")],
            [(.compatible, .compatible, "Order.gift")]),
        row("required property added", [("required: [id, status, total]", "required: [id, status, total, currency]"), ("                note: {type: string}", "                note: {type: string}\n                currency: {type: string}")],
            [(.compatible, .breaking, "Order.currency")]),
        row("optional becomes required", [("required: [id, status, total]", "required: [id, status, total, note]")], [(.compatible, .breaking, "Order.note")]),
        row("required becomes optional", [("required: [id, status, total]", "required: [id, status]")], [(.breaking, .breaking, "Order.total")]),
        row("property type changed", [("total: {type: number}", "total: {type: string}")], [(.breaking, .breaking, "Order.total")]),
        row("integer width changed", [("quantity: {type: integer, format: int32}", "quantity: {type: integer, format: int64}")], [(.breaking, .breaking, "Line.quantity")]),
        // Shipped apps' Double and String decode every new value: only the Swift type changes.
        row("number becomes float", [("total: {type: number}", "total: {type: number, format: float}")], [(.compatible, .breaking, "Order.total")]),
        row("string becomes date-time", [("                note: {type: string}", "                note: {type: string, format: date-time}")], [(.compatible, .breaking, "Order.note")]),
        row("string becomes an open enum", [("                note: {type: string}", "                note: {type: string, enum: [gift, rush]}")], [(.compatible, .breaking, "Order.note")]),
        row("number becomes integer", [("total: {type: number}", "total: {type: integer}")], [(.compatible, .breaking, "Order.total")]),
        row("integer becomes unsigned", [("quantity: {type: integer, format: int32}", "quantity: {type: integer, format: uint32}")], [(.breaking, .breaking, "Line.quantity")]),
        row("integer becomes number", [("quantity: {type: integer, format: int32}", "quantity: {type: number}")], [(.breaking, .breaking, "Line.quantity")]),
        row("array becomes single value", [("                lines:\n                  type: array\n                  items:\n                    $ref: '#/components/schemas/Line'", "                lines:\n                  $ref: '#/components/schemas/Line'")],
            [(.breaking, .breaking, "Order.lines")]),
        row("nested property removed", [("required: [sku]\n              properties:\n                sku: {type: string}\n                quantity: {type: integer, format: int32}", "required: [sku]\n              properties:\n                sku: {type: string}")],
            [(.compatible, .breaking, "Line.quantity")]),
        row("property renamed in Swift only", [("                note: {type: string}", "                note: {type: string, x-swift-name: remark}")], [(.compatible, .breaking, "Order.note")]),
        // Enums (generated enums are open).
        row("enum value added", [("enum: [placed, paid, shipped]", "enum: [placed, paid, shipped, returned]")], [(.compatible, .breaking, "Order.Status.returned")]),
        row("array items become nullable", [("                  items:\n                    $ref: '#/components/schemas/Line'", "                  items:\n                    oneOf: [{$ref: '#/components/schemas/Line'}, {type: 'null'}]")],
            [(.breaking, .breaking, "Order.lines")]),
        row("enum value removed", [("enum: [placed, paid, shipped]", "enum: [placed, paid]")], [(.compatible, .breaking, "Order.Status.shipped")]),
        // The same Swift case: code compiles; shipped apps read 'SHIPPED' as .unknown, not .shipped.
        row("enum value respelled in another case", [("enum: [placed, paid, shipped]", "enum: [placed, paid, SHIPPED]")],
            [(.breaking, .compatible, "Order.Status.shipped")]),
        row("extra properties kept", [("            Line:\n", "              additionalProperties: true\n            Line:\n")],
            [(.compatible, .compatible, "Order.additionalProperties")]),
        // Generated enums are open: shipped apps decode any string (as `.unknown` when new).
        row("enum becomes a string", [("                status:\n                  type: string\n                  enum: [placed, paid, shipped]", "                status: {type: string}")],
            [(.compatible, .breaking, "Order.status")]),
        // Types.
        row("schema renamed", [("$ref: '#/components/schemas/Order'", "$ref: '#/components/schemas/Purchase'"), ("            Order:\n", "            Purchase:\n")],
            [(.compatible, .breaking, "Order"), (.compatible, .breaking, "Order.Status")]),
        // Channels.
        row("channel added", [("          stockValues:", "          priceValues:\n            action: receive\n            channel:\n              $ref: '#/channels/prices'\n          stockValues:"),
                              ("          stock:\n            address:", "          prices:\n            address: shop/prices\n            messages:\n              priceChanged:\n                payload: {type: object, properties: {sku: {type: string}}}\n          stock:\n            address:")],
            [(.compatible, .breaking, "ShopNotifier.priceValues()")]),
        row("channel removed", [("          stockValues:\n            action: receive\n            channel:\n              $ref: '#/channels/stock'\n", "")],
            [(.breaking, .breaking, "ShopNotifier.stockValues()")]),
        // Another topic on Server-Sent Events: `/shop/…` and `shop/…` are not one path.
        row("address gains a leading slash", [("address: shop/user/{userId}/orders", "address: /shop/user/{userId}/orders")], [(.breaking, .compatible, "OrdersSubscription")]),
        row("address changed", [("address: shop/user/{userId}/orders", "address: shop/users/{userId}/orders")], [(.breaking, .compatible, "OrdersSubscription")]),
        row("address parameter added", [("address: shop/user/{userId}/orders", "address: shop/user/{userId}/orders/{region}"), ("                description: The subscriber.", "                description: The subscriber.\n              region: {}")],
            [(.breaking, .breaking, "OrdersSubscription")]),
        // The path and `setUserId(_:)` stay: nothing a shipped app or its code sees changes.
        row("address parameter renamed, Swift names kept", [("shop/user/{userId}/orders", "shop/user/{user_id}/orders"), ("              userId:\n                description: The subscriber.", "              user_id:\n                description: The subscriber.")],
            [(.compatible, .compatible, "OrdersSubscription")]),
        row("address parameter renamed in Swift too", [("shop/user/{userId}/orders", "shop/user/{accountId}/orders"), ("              userId:\n                description: The subscriber.", "              accountId:\n                description: The subscriber.")],
            [(.compatible, .breaking, "OrdersSubscription")]),
        row("address left open", [("            address: shop/user/{userId}/orders\n            parameters:\n              userId:\n                description: The subscriber.\n", "")],
            [(.breaking, .breaking, "OrdersSubscription")]),
        // The event type becomes an enum of the messages; shipped apps still decode the first one.
        row("message added to a one-message channel", [("                payload:\n                  $ref: '#/components/schemas/Order'", "                payload:\n                  $ref: '#/components/schemas/Order'\n              orderNoted:\n                name: order/noted\n                payload: {type: object, properties: {note: {type: string}}}")],
            [(.compatible, .breaking, "OrdersSubscription.Event")]),
        row("allowed parameter value removed", [("enum: [eu, us, ap]", "enum: [eu, us]")], [(.breaking, .compatible, "StockSubscription.region")]),
        row("allowed parameter value added", [("enum: [eu, us, ap]", "enum: [eu, us, ap, af]")], []),
        // A channel's only message is delivered whatever its event type says (issue 45).
        row("message name changed", [("name: order/changed", "name: order/updated")], [(.compatible, .compatible, "OrdersSubscription")]),
        row("event type alias added", [("name: order/changed", "name: order/changed\n                x-event-type-aliases: [order/updated]")],
            [(.compatible, .compatible, "OrdersSubscription")]),
        row("payload replaced by another type", [("$ref: '#/components/schemas/Order'", "$ref: '#/components/schemas/Stock'")],
            [(.compatible, .breaking, "Order"),  // then each property: Order's required ones are gone, Stock's are new
             (.breaking, .breaking, "Stock.id"), (.breaking, .breaking, "Stock.status"), (.breaking, .breaking, "Stock.total"),
             (.compatible, .breaking, "Stock.note"), (.compatible, .breaking, "Stock.lines"),
             (.compatible, .breaking, "Stock.sku"), (.compatible, .breaking, "Stock.available")]),
        row("notifier method renamed", [("          orderValues:\n", "          orderUpdates:\n")], [(.compatible, .breaking, "ShopNotifier.orderValues()")]),
        row("notifier renamed", [("x-swift-notifier: ShopNotifier", "x-swift-notifier: StoreNotifier")], [(.compatible, .breaking, "ShopNotifier")]),
    ]

    static func write(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spec-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("events.yaml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func diff(_ old: String, _ new: String) throws -> [SpecChange] {
        let oldPath = try write(old), newPath = try write(new)
        defer { removeFolders(of: [oldPath, newPath]) }
        switch SpecDiff.compare(old: GeneratorConfig(specPath: oldPath), new: GeneratorConfig(specPath: newPath)) {
        case .success(let changes): return changes
        case .failure(let failure): throw DiffFailed(diagnostics: failure.diagnostics.map(\.description))
        }
    }

    /// Removes the folders `write` and `vortex` made for these specs.
    static func removeFolders(of specs: [String]) {
        for spec in specs { try? FileManager.default.removeItem(at: URL(fileURLWithPath: spec).deletingLastPathComponent()) }
    }

    struct DiffFailed: Error, CustomStringConvertible {
        var diagnostics: [String]
        var description: String { diagnostics.joined(separator: "\n") }
    }

    @Test(arguments: rows)
    func verdicts(_ row: Row) throws {
        try check(row, base: Self.base)
    }

    func check(_ row: Row, base: String) throws {
        var edited = base
        for (old, new) in row.edits {
            #expect(edited.contains(old), "edit does not apply: \(old)")
            edited = edited.replacingOccurrences(of: old, with: new)
        }
        let changes = try Self.diff(base, edited)
        let actual = changes.map { "\($0.symbol) wire: \($0.wire.rawValue) source: \($0.source.rawValue)" }.sorted()
        let expected = row.expected.map { "\($0.2) wire: \($0.0.rawValue) source: \($0.1.rawValue)" }.sorted()
        #expect(actual == expected, "\(changes.map(\.reason))")
        #expect(changes.allSatisfy { $0.location != nil && !$0.reason.isEmpty })
    }

    // MARK: Shared and open addresses

    static let roomsBase = """
        asyncapi: 3.0.0
        info: {title: Rooms, version: 1.0.0, x-swift-notifier: RoomNotifier}
        channels:
          joins:
            address: app/rooms/{roomId}
            parameters: {roomId: {}}
            messages: {joined: {payload: {$ref: '#/components/schemas/Joined'}}}
          lobby:
            messages: {joined: {payload: {$ref: '#/components/schemas/Joined'}}}
          notices:
            address: app/notices
            messages: {notice: {contentType: text/plain, payload: {type: string}}}
        operations:
          joinValues: {action: receive, channel: {$ref: '#/channels/joins'}}
          lobbyValues: {action: receive, channel: {$ref: '#/channels/lobby'}}
          noticeValues: {action: receive, channel: {$ref: '#/channels/notices'}}
        components:
          schemas:
            Joined: {type: object, required: [kind], properties: {kind: {type: string, const: joined}, who: {type: string}}}
            Left: {type: object, required: [kind], properties: {kind: {type: string, const: left}, who: {type: string}}}
        """

    static let leavesChannel = (
        "  lobby:\n",
        "  leaves:\n    address: app/rooms/{roomId}\n    parameters: {roomId: {}}\n    messages: {left: {payload: {$ref: '#/components/schemas/Left'}}}\n  lobby:\n")
    static let leavesOperation = ("  lobbyValues:", "  leaveValues: {action: receive, channel: {$ref: '#/channels/leaves'}}\n  lobbyValues:")

    static let roomsRows: [Row] = [
        row("identical", [], []),
        // The joins stream of a shipped app takes every event on the address as its own.
        row("channel added on a shared address", [leavesChannel, leavesOperation],
            [(.breaking, .compatible, "JoinsSubscription"), (.compatible, .breaking, "RoomNotifier.leaveValues()")]),
        // The path of an open channel comes from the app: renaming its key changes Swift names only.
        row("open channel key renamed", [("  lobby:\n", "  hall:\n"), ("$ref: '#/channels/lobby'", "$ref: '#/channels/hall'")],
            [(.compatible, .breaking, "Channels.lobby"), (.compatible, .breaking, "LobbySubscription")]),
        row("text/plain removed", [("{notice: {contentType: text/plain, payload: {type: string}}}", "{notice: {payload: {type: string}}}")],
            [(.breaking, .compatible, "NoticesSubscription")]),
    ]

    /// The wire verdicts of the respelled enum value and the union kept to one variant, held against
    /// what a shipped app's models do with the new payloads.
    @Test func shippedModelsReadTheNewPayloadsAsTheVerdictsSay() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        var models: [URL] = []
        for (index, spec) in [Self.base, Self.unionBase].enumerated() {
            let folder = work.appendingPathComponent("old\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let (result, output) = try await TestSupport.generate(spec: spec, named: "events.yaml", in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let renamed = work.appendingPathComponent("Models\(index).swift")  // swiftc wants distinct file names
            try FileManager.default.moveItem(at: output.appendingPathComponent("Models.swift"), to: renamed)
            models.append(renamed)
        }
        let main = work.appendingPathComponent("main.swift")
        try #"""
            import Foundation
            // 'SHIPPED' (the respelled value): wire-breaking, the app's `.shipped` branch no longer runs.
            let order = try JSONDecoder().decode(Order.self, from: Data(#"{"id":"1","status":"SHIPPED","total":1}"#.utf8))
            print(order.status == .shipped, order.status)
            // A walk, all the new `oneOf: [Walk]` sends: wire-compatible, still `.walk`.
            let move = try JSONDecoder().decode(Move.self, from: Data(#"{"kind":"walk","steps":3}"#.utf8))
            if case .walk(let walk) = move { print("walk", walk.steps ?? 0) } else { print("not a walk") }
            """#.write(to: main, atomically: true, encoding: .utf8)
        let run = try await TestSupport.runProgram(models: models, main: main, in: work)
        #expect(run.build.status == 0, "\(run.build.stderr)")
        #expect(run.stdout == "false unknown(\"SHIPPED\")\nwalk 3\n")
    }

    /// A message leaving a channel is wire-breaking, as a channel removed is (shipped apps wait for
    /// its events, which no longer come): it was called wire-compatible.
    @Test func aMessageLeavingAChannelIsWireBreaking() throws {
        let payload = "                payload:\n                  $ref: '#/components/schemas/Order'"
        func message(_ key: String) -> String { "\n              \(key):\n                payload: {type: object, properties: {note: {type: string}}}" }
        let one = Self.base
        let two = one.replacingOccurrences(of: payload, with: payload + message("orderNoted"))
        let three = one.replacingOccurrences(of: payload, with: payload + message("orderNoted") + message("orderPaid"))
        let fewer = try Self.diff(three, two)
        #expect(fewer.contains { $0.wire == .breaking && $0.source == .breaking && $0.reason.hasPrefix("message 'orderPaid' leaves the channel") },
                "\(fewer.map(\.reason))")
        let single = try Self.diff(two, one)
        #expect(single.contains { $0.wire == .breaking && $0.reason.contains("'orderNoted' leave the channel") }, "\(single.map(\.reason))")
        // Messages added stay wire-compatible.
        #expect(try Self.diff(two, three).allSatisfy { $0.wire == .compatible })
    }

    @Test(arguments: roomsRows)
    func roomsVerdicts(_ row: Row) throws {
        try check(row, base: Self.roomsBase)
    }

    /// With both channels on the address, a changed `const` tag of one reaches the other's shipped streams.
    @Test func aTagChangedOnASharedAddressIsWireBreakingForTheOtherChannel() throws {
        var shared = Self.roomsBase
        for (old, new) in [Self.leavesChannel, Self.leavesOperation] { shared = shared.replacingOccurrences(of: old, with: new) }
        let changes = try Self.diff(shared, shared.replacingOccurrences(of: "const: left", with: "const: gone"))
        #expect(changes.map(\.symbol) == ["JoinsSubscription"], "\(changes.map(\.reason))")
        #expect(changes.map(\.wire) == [.breaking])
        #expect(changes.first?.reason.contains("'gone'") == true)
    }

    /// Own streams: the same Swift, but the stream is requested, ended and retried another way.
    @Test func ownStreamFlagsAreWireBreakingAndSourceCompatible() throws {
        let own = Self.base.replacingOccurrences(of: "            address: shop/user/{userId}/orders\n", with: "            address: shop/user/{userId}/orders\n            x-request-stream: true\n")
        let becameOwn = try Self.diff(Self.base, own)
        #expect(becameOwn.map(\.symbol) == ["OrdersSubscription"], "\(becameOwn.map(\.reason))")
        #expect(becameOwn.map(\.wire) == [.breaking] && becameOwn.map(\.source) == [.compatible])
        #expect(becameOwn.first?.reason.contains("its own request") == true)

        let ending = own.replacingOccurrences(of: "                name: order/changed\n", with: "                name: order/changed\n                x-ends-stream: true\n")
        let ends = try Self.diff(own, ending)
        #expect(ends.map(\.reason) == [
            "the events that end the stream change from none to 'order/changed' (x-ends-stream): shipped apps end, or keep, the stream the old way",
        ])
        let erring = ending.replacingOccurrences(of: "x-ends-stream: true", with: "x-stream-error: true")
        let errors = try Self.diff(ending, erring)
        #expect(errors.count == 2 && errors.allSatisfy { $0.wire == .breaking && $0.source == .compatible }, "\(errors.map(\.reason))")
    }

    /// `café` as U+00E9, then as `e` + U+0301: shipped apps' JSONDecoder reads either; Swift
    /// identifiers are not normalized, so the property is another name.
    @Test func aPropertyKeyRespelledInAnotherNormalizationIsSourceBreakingOnly() throws {
        let before = Self.roomsBase.replacingOccurrences(of: "who: {type: string}}}\n    Left", with: "\"caf\\u00E9\": {type: string}}}\n    Left")
        let after = Self.roomsBase.replacingOccurrences(of: "who: {type: string}}}\n    Left", with: "\"cafe\\u0301\": {type: string}}}\n    Left")
        let changes = try Self.diff(before, after)
        #expect(changes.map { "\($0.wire) \($0.source)" } == ["compatible breaking"], "\(changes.map(\.reason))")
        #expect(changes.first?.reason.contains("normalization") == true)
    }

    // MARK: Unions

    static let unionBase = """
        asyncapi: 3.0.0
        info: {title: Moves, version: 1.0.0, x-swift-notifier: MoveNotifier}
        channels:
          moves: {address: app/moves, messages: {m: {payload: {$ref: '#/components/schemas/Move'}}}}
        operations:
          moveValues: {action: receive, channel: {$ref: '#/channels/moves'}}
        components:
          schemas:
            Walk: {type: object, properties: {kind: {type: string}, steps: {type: integer}}}
            Run: {type: object, properties: {kind: {type: string}}}
            Swim: {type: object, properties: {kind: {type: string}}}
            Crawl: {type: object, properties: {kind: {type: string}}}
            Move:
              oneOf: [{$ref: '#/components/schemas/Walk'}, {$ref: '#/components/schemas/Run'}, {$ref: '#/components/schemas/Swim'}]
              discriminator: {propertyName: kind, mapping: {walk: Walk}}
        """

    static let unionRows: [Row] = [
        row("identical", [], []),
        row("variant added", [("{$ref: '#/components/schemas/Swim'}]", "{$ref: '#/components/schemas/Swim'}, {$ref: '#/components/schemas/Crawl'}]")],
            [(.compatible, .breaking, "Move.crawl")]),
        row("variant removed", [(", {$ref: '#/components/schemas/Run'}", "")], [(.compatible, .breaking, "Move.run")]),
        // `oneOf` of one is that variant's type: what the server sends still decodes as `.walk`.
        row("all variants but one removed", [(", {$ref: '#/components/schemas/Run'}, {$ref: '#/components/schemas/Swim'}", "")],
            [(.compatible, .breaking, "MovesSubscription.Event")]),
        row("mapping key changed", [("mapping: {walk: Walk}", "mapping: {stroll: Walk}")], [(.breaking, .compatible, "Move.walk")]),
        row("discriminator dropped", [("\n      discriminator: {propertyName: kind, mapping: {walk: Walk}}", "")], [(.breaking, .compatible, "Move")]),
        row("variant's property type changed", [("steps: {type: integer}", "steps: {type: string}")], [(.breaking, .breaking, "Walk.steps")]),
        // The union becomes a struct holding it (and the new property): the same JSON decodes the same way.
        row("properties added beside the oneOf", [("    Move:\n", "    Move:\n      properties: {note: {type: string}}\n")],
            [(.compatible, .breaking, "MovesSubscription.Event"), (.compatible, .breaking, "Move")]),  // the enum is now `Move.Value2`
    ]

    @Test(arguments: unionRows)
    func unionVerdicts(_ row: Row) throws {
        try check(row, base: Self.unionBase)
    }

    // MARK: The Vortex spec

    /// The Vortex spec folder copied, with `edit` applied to its schemas file.
    static func vortex(_ edit: (String) -> String = { $0 }) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vortex-diff-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("spec"), to: folder)
        let schemas = folder.appendingPathComponent("openapi-schemas.yaml")
        try Data(edit(String(contentsOf: schemas, encoding: .utf8)).utf8).write(to: schemas)
        return folder.appendingPathComponent("vortex-events.asyncapi.yaml").path
    }

    static func vortexDiff(old: @escaping (String) -> String = { $0 }, new: (String) -> String) throws -> [SpecChange] {
        let oldPath = try vortex(old), newPath = try vortex(new)
        defer { removeFolders(of: [oldPath, newPath]) }
        switch SpecDiff.compare(old: GeneratorConfig(specPath: oldPath), new: GeneratorConfig(specPath: newPath)) {
        case .success(let changes): return changes
        case .failure(let failure): throw DiffFailed(diagnostics: failure.diagnostics.map(\.description))
        }
    }

    static func removingOnline(_ text: String) -> String {
        let start = text.range(of: "        online:\n")!
        let end = text.range(of: "description: Whether the device is online.\n", range: start.upperBound..<text.endIndex)!
        return text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: "")
    }

    static func requiringOnline(_ text: String) -> String {
        let presence = text.range(of: "    DevicePresenceOutput:")!
        let required = text.range(of: "required: [eventType, timestamp]", range: presence.upperBound..<text.endIndex)!
        // Not nullable either: a required but nullable property decodes a missing key as nil.
        return text.replacingCharacters(in: required, with: "required: [eventType, timestamp, online]")
            .replacingOccurrences(of: "        online:\n          type: boolean\n          nullable: true\n", with: "        online:\n          type: boolean\n")
    }

    @Test func removingOnlineFromDevicePresenceIsWireBreakingOnlyWhenItWasRequired() throws {
        // As the spec has it: optional (not required, and nullable).
        let optional = try Self.vortexDiff(new: Self.removingOnline)
        #expect(optional.map(\.symbol) == ["DevicePresenceOutput.online"])
        #expect(optional.map(\.wire) == [.compatible])
        #expect(optional.map(\.source) == [.breaking])

        let required = try Self.vortexDiff(old: Self.requiringOnline, new: Self.removingOnline)  // gone from `required` too
        #expect(required.map(\.symbol) == ["DevicePresenceOutput.online"])
        #expect(required.map(\.wire) == [.breaking])
        #expect(required.map(\.source) == [.breaking])
    }

    @Test func addingALicensePhaseValueIsCompatibleOnTheWireAndBreaksExhaustiveSwitches() throws {
        let changes = try Self.vortexDiff(new: {
            $0.replacingOccurrences(of: "enum: [SetupStatus, Valid, NoticePeriod, GracePeriod, RenewalOverdue, Invalid]",
                                    with: "enum: [SetupStatus, Valid, NoticePeriod, GracePeriod, RenewalOverdue, Invalid, Suspended]")
        })
        #expect(changes.map(\.symbol) == ["LicenseStateOutput.LicensePhase.suspended"])
        #expect(changes.allSatisfy { $0.wire == .compatible && $0.source == .breaking })
        #expect(changes.first?.location?.line == 217)
    }

    @Test func theVortexSpecAgainstItselfReportsNothing() throws {
        #expect(try Self.vortexDiff(new: { $0 }).isEmpty)
    }

    @Test func theTableCoversAtLeastThirtyPairs() {
        #expect(Self.rows.count >= 30)
    }
}

/// `channelgen diff` and `check`'s summary as users run them: in a git repository.
@Suite("channelgen diff command")
struct DiffCommandTests {
    /// A package with the base spec committed, then `edit` applied to the working copy.
    static func repository(edit: (String) -> String) async throws -> URL {
        let root = try TestSupport.temporaryDirectory()
        let target = root.appendingPathComponent("Sources/Shop")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("spec"), withIntermediateDirectories: true)
        let spec = root.appendingPathComponent("spec/events.yaml")
        try Data(SpecDiffTests.base.utf8).write(to: spec)
        try "spec: ../../spec/events.yaml\n".write(to: target.appendingPathComponent("channelgen.yaml"), atomically: true, encoding: .utf8)
        try "@_exported import ChannelRuntime\n".write(to: target.appendingPathComponent("Shop.swift"), atomically: true, encoding: .utf8)
        let generated = try await TestSupport.channelgen(["generate", "--config", "Sources/Shop/channelgen.yaml", "--output", "Generated/Shop", "--quiet"], in: root)
        #expect(generated.status == 0, "\(generated.stderr)")
        for arguments in [["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]] {
            let git = try await TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["git"] + arguments, in: root)
            #expect(git.status == 0, "\(git.stderr)")
        }
        try Data(edit(SpecDiffTests.base).utf8).write(to: spec)
        return root
    }

    @Test func baseReadsTheOldSpecFromGitAndExitsOneOnABreakingChange() async throws {
        let root = try await Self.repository { $0.replacingOccurrences(of: "          stockValues:\n            action: receive\n            channel:\n              $ref: '#/channels/stock'\n", with: "") }
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await TestSupport.channelgen(["diff", "--base", "HEAD", "--format", "markdown"], in: root)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("#### Breaking on the wire"))
        #expect(result.stdout.contains("`HEAD:spec/events.yaml:"))  // the removed channel is where it was
        #expect(result.stdout.contains("`ShopNotifier.stockValues()`"))
    }

    @Test func noChangeExitsZeroAndAnUnknownRevisionExitsTwo() async throws {
        let root = try await Self.repository { $0.replacingOccurrences(of: "description: An order changed.", with: "description: Reworded.") }
        defer { try? FileManager.default.removeItem(at: root) }
        let same = try await TestSupport.channelgen(["diff", "--base", "HEAD"], in: root)
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stdout.contains("no API change"))
        let unknown = try await TestSupport.channelgen(["diff", "--base", "no-such-revision"], in: root)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: cannot read"))
        let usage = try await TestSupport.channelgen(["diff", "--base", "HEAD", "--format", "yaml"], in: root)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("yaml"))
        let neither = try await TestSupport.channelgen(["diff"], in: root)
        #expect(neither.status == 2)
    }

    @Test func checkPrintsTheSemanticSummaryAboveTheUnifiedDiff() async throws {
        let root = try await Self.repository { $0.replacingOccurrences(of: "enum: [placed, paid, shipped]", with: "enum: [placed, paid, shipped, returned]") }
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try await TestSupport.channelgen(["check"], in: root)
        #expect(result.status == 1)
        let summary = try #require(result.stdout.range(of: "Shop: spec changes since HEAD"))
        let unified = try #require(result.stdout.range(of: "--- a/Generated/Shop/Models.swift"))
        #expect(summary.lowerBound < unified.lowerBound)
        #expect(result.stdout.contains("Order.Status.returned: enum value 'returned' is added"))
    }

    /// A change made in `channelgen.yaml` alone, and what the diff must say about it.
    struct ConfigEdit: CustomTestStringConvertible, Sendable {
        var name: String
        var config: String
        var expected: String
        var testDescription: String { name }
    }

    static let configEdits = [
        ConfigEdit(name: "a type renamed through names:", config: "names: {Order: Purchase}\n",
                   expected: "Order: the type is renamed to Purchase [wire: compatible, source: breaking]"),
        ConfigEdit(name: "an enum case renamed through names:", config: "names: {shipped: dispatched}\n",
                   expected: "Order.Status.shipped: the case is renamed to dispatched [wire: compatible, source: breaking]"),
        ConfigEdit(name: "the notifier renamed through notifier:", config: "notifier: StoreNotifier\n",
                   expected: "ShopNotifier: the notifier is renamed to StoreNotifier [wire: compatible, source: breaking]"),
        ConfigEdit(name: "the transport changed", config: "transport: sse\n",
                   expected: "ShopNotifier: the transport changes from appsync to sse (transport:): shipped apps connect to AWS AppSync Events, "
                       + "the new client to a Server-Sent Events hub, whose channel rules differ [wire: breaking, source: compatible]"),
        ConfigEdit(name: "models only", config: "generate: models\n",
                   expected: "the target generates payload models only instead of the client (models, channels, subscriptions, notifier) (generate:)"),
    ]

    /// A config-only change was "no API change", exit 0, in both forms: `--base` read the old spec
    /// with today's config, and two specs took one `--config` for both sides.
    @Test(arguments: configEdits)
    func aChangeMadeInTheConfigIsJudgedInBothForms(_ edit: ConfigEdit) async throws {
        let root = try await Self.repository { $0 }
        defer { try? FileManager.default.removeItem(at: root) }
        let config = root.appendingPathComponent("Sources/Shop/channelgen.yaml")
        let before = try TestSupport.contents(config)
        try (before + edit.config).write(to: config, atomically: true, encoding: .utf8)

        let base = try await TestSupport.channelgen(["diff", "--base", "HEAD"], in: root)
        #expect(base.status == 1, "\(base.stdout)\(base.stderr)")
        #expect(base.stdout.contains(edit.expected), "\(base.stdout)")
        #expect(base.stderr.contains("note: each side is read with its own Sources/Shop/channelgen.yaml (at HEAD, and today's)"), "\(base.stderr)")

        // Two specs, each with its own config.
        let old = root.appendingPathComponent("old.yaml")
        try "spec: spec/events.yaml\n".write(to: old, atomically: true, encoding: .utf8)
        let files = try await TestSupport.channelgen(
            ["diff", "spec/events.yaml", "spec/events.yaml", "--old-config", "old.yaml", "--new-config", "Sources/Shop/channelgen.yaml"], in: root)
        #expect(files.status == 1, "\(files.stdout)\(files.stderr)")
        #expect(files.stdout.contains(edit.expected), "\(files.stdout)")
        #expect(files.stderr.contains("note: the old spec spec/events.yaml is read with old.yaml"), "\(files.stderr)")
    }

    /// Without configs named, each spec is read with the package's `channelgen.yaml` that names it
    /// (the notifier is the configured one, not one named after the title), else with the defaults, said.
    @Test func twoSpecsAreEachReadWithTheConfigThatNamesThem() async throws {
        let root = try await Self.repository { $0.replacingOccurrences(of: "x-swift-notifier: ShopNotifier", with: "") }
        defer { try? FileManager.default.removeItem(at: root) }
        let config = root.appendingPathComponent("Sources/Shop/channelgen.yaml")
        try "spec: ../../spec/events.yaml\nnotifier: ShopNotifier\n".write(to: config, atomically: true, encoding: .utf8)
        let copy = root.appendingPathComponent("old.yaml")
        try Data(SpecDiffTests.base.replacingOccurrences(of: "x-swift-notifier: ShopNotifier", with: "").utf8).write(to: copy)
        let result = try await TestSupport.channelgen(["diff", "old.yaml", "spec/events.yaml"], in: root)
        #expect(result.stderr.contains("note: the old spec old.yaml is read with the default settings (no channelgen.yaml names it; pass --old-config)"),
                "\(result.stderr)")
        #expect(result.stderr.contains("note: the new spec spec/events.yaml is read with Sources/Shop/channelgen.yaml"), "\(result.stderr)")
        // The defaults name the notifier after the title; the config names it ShopNotifier.
        #expect(result.stdout.contains("ShopEventsNotifier: the notifier is renamed to ShopNotifier"), "\(result.stdout)")
    }

    @Test func twoSpecsAndJSON() async throws {
        let old = try SpecDiffTests.write(SpecDiffTests.base)
        let new = try SpecDiffTests.write(SpecDiffTests.base.replacingOccurrences(of: "total: {type: number}", with: "total: {type: string}"))
        defer { SpecDiffTests.removeFolders(of: [old, new]) }
        let result = try await TestSupport.channelgen(["diff", old, new, "--format", "json"])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["wireBreaking"] as? Bool == true)
        #expect((object?["changes"] as? [[String: Any]])?.first?["symbol"] as? String == "Order.total")
    }
}
