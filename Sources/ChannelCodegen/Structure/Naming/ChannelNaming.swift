import ChannelSpec

/// Pass 4: what each channel and operation is called in the generated API — the channel constants,
/// each subscription's parameters, the notifier's methods and setters, the mock's records. The
/// declarations are built from `channels`, `receivers` and `publishers`, which carry each spec
/// element with its names: nothing is looked up.
struct ChannelNaming: Sendable {
    /// Every channel with its names, in `api.channels` order.
    private(set) var channels: [SwiftNaming.NamedChannel] = []
    /// The receive operations whose channel exists, in `api.operations` order (as `api.receivers`).
    private(set) var receivers: [SwiftNaming.NamedOperation] = []
    /// The send operations whose channel exists, in `api.sends` order (as `api.publishers`).
    private(set) var publishers: [SwiftNaming.NamedOperation] = []
    /// Every channel parameter in first-use order; the notifier holds their values.
    private(set) var notifierParameters: [SwiftNaming.NotifierParameter] = []
    /// The same names by spec key (Unicode scalars, as every spec name), for comparing two specs.
    private(set) var channelConstants: ExactKeyDictionary<Identifier> = [:]
    private(set) var subscriptions: ExactKeyDictionary<Identifier> = [:]
    private(set) var parameters: ExactKeyDictionary<[Identifier]> = [:]
    /// Operation id → notifier method, and the mock's broadcaster (`devicePresenceValues` → `devicePresence`).
    private(set) var methods: ExactKeyDictionary<Identifier> = [:]
    private(set) var mockProperties: ExactKeyDictionary<Identifier> = [:]

    init(api: ChannelAPI, topLevel: TopLevelNames, diagnostics: inout Diagnostics) {
        var constants = Scope(what: "channel constant")
        constants.reserve("all", "the list of every channel")
        let constantNames = constants.claim(api.channels.map { channel in
            .init(SwiftIdentifiers.lowerCamel(channel.swiftName ?? channel.key), explicit: channel.swiftName != nil,
                  location: channel.origin.location, original: channel.swiftName ?? channel.key)
        }, &diagnostics)
        for (channel, (constant, subscription)) in zip(api.channels, zip(constantNames, topLevel.subscriptions)) {
            var scope = Scope(what: "channel parameter")
            for member in ["template", "eventType", "parameters", "channel"] {
                scope.reserve(member, "a member of every subscription")
            }
            let parameterNames = scope.claim(channel.parameters.map { parameter in
                .init(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name), explicit: parameter.swiftName != nil,
                      location: parameter.origin.location, original: parameter.swiftName ?? parameter.name)
            }, &diagnostics).map(Identifier.init)
            channels.append(SwiftNaming.NamedChannel(channel: channel, constant: Identifier(constant), subscription: subscription, parameters: parameterNames))
            channelConstants[channel.key] = Identifier(constant)
            subscriptions[channel.key] = subscription
            parameters[channel.key] = parameterNames
        }

        // The notifier: one setter per distinct parameter, one method per receive operation.
        // By Swift's `String ==`, as the runtime keys parameter values: `été` written two ways is one parameter.
        var seen: [String: SourceLocation] = [:]
        var distinct: [ChannelParameter] = []
        for channel in api.channels {
            for parameter in channel.parameters where seen[parameter.name] == nil {
                seen[parameter.name] = parameter.origin.location
                distinct.append(parameter)
            }
        }
        var methodScope = Scope(what: "notifier method")
        methodScope.reserve("source", "the notifier's event source")
        methodScope.reserve("values", "the notifier's stream of one channel instance")
        methodScope.reserve("envelopes", "the notifier's stream of envelopes")
        methodScope.reserve("connectionStates", "the notifier's stream of connection states")
        // `updates(_:)` and the mock's `send(_:)` overload an operation's method of that name (other
        // parameters); `flush()` and `reset()` would clash with one.
        for name in ["flush", "reset"] { methodScope.reserve(name, "a method of the generated mock") }
        // Method bodies name subscription types in expressions (`XSubscription.self`).
        for name in topLevel.subscriptions { methodScope.reserve(name.name, "a subscription type") }
        let setterNames = methodScope.claim(distinct.map { parameter in
            .init("set" + SwiftIdentifiers.upperCamel(parameter.swiftName ?? parameter.name), explicit: false, location: parameter.origin.location,
                  original: parameter.swiftName ?? parameter.name, what: "parameter setter")
        }, &diagnostics)
        let methodNames = methodScope.claim(api.operations.map { operation in
            .init(SwiftIdentifiers.lowerCamel(operation.swiftName ?? operation.id), explicit: operation.swiftName != nil,
                  location: operation.origin.location, original: operation.swiftName ?? operation.id)
        }, &diagnostics)
        // Publish methods: named by their operation as written (`sendChatMessage`).
        let publishNames = methodScope.claim(api.sends.map { operation in
            .init(SwiftIdentifiers.lowerCamel(operation.swiftName ?? operation.id), explicit: operation.swiftName != nil,
                  location: operation.origin.location, original: operation.swiftName ?? operation.id, what: "publish method")
        }, &diagnostics)

        var mockScope = Scope(what: "mock property")
        mockScope.reserve("broadcaster", "the mock's broadcaster lookup")
        mockScope.reserve("delivery", "the mock's delivery mode")
        mockScope.reserve("connection", "the mock's connection state")
        for name in ["flush", "reset", "send", "connectionStates", "updates", "values", "envelopes"] {
            mockScope.reserve(name, "a method of the generated mock")
        }
        let changeNames = mockScope.claim(distinct.map { parameter in
            .init(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name) + "Changes", explicit: false, location: parameter.origin.location,
                  original: parameter.swiftName ?? parameter.name, what: "mock parameter record")
        }, &diagnostics)
        let broadcasterNames = mockScope.claim(methodNames.map { name in
            name.hasSuffix("Values") && name.count > 6 ? String(name.dropLast(6)) : name + "Events"
        }.enumerated().map { index, name in
            .init(name, explicit: false, location: api.operations[index].origin.location, original: api.operations[index].id)
        }, &diagnostics)
        let publishedNames = mockScope.claim(publishNames.enumerated().map { index, name in
            .init(name + "Published", explicit: false, location: api.sends[index].origin.location, original: api.sends[index].id,
                  what: "mock publish record")
        }, &diagnostics)

        var byKey: ExactKeyDictionary<SwiftNaming.NamedChannel> = [:]
        for channel in channels where byKey[channel.channel.key] == nil { byKey[channel.channel.key] = channel }
        func named(_ operations: [ChannelOperation], _ methods: [String], _ records: [String]) -> [SwiftNaming.NamedOperation] {
            zip(operations, zip(methods, records)).compactMap { operation, names in
                self.methods[operation.id] = Identifier(names.0)
                mockProperties[operation.id] = Identifier(names.1)
                return byKey[operation.channelKey].map { channel in
                    SwiftNaming.NamedOperation(operation: operation, channel: channel, method: Identifier(names.0), mockProperty: Identifier(names.1))
                }
            }
        }
        receivers = named(api.operations, methodNames, broadcasterNames)
        publishers = named(api.sends, publishNames, publishedNames)
        for (index, parameter) in distinct.enumerated() {
            notifierParameters.append(SwiftNaming.NotifierParameter(
                name: parameter.name, swiftName: Identifier(SwiftIdentifiers.lowerCamel(parameter.swiftName ?? parameter.name)),
                setter: Identifier(setterNames[index]), mockChanges: Identifier(changeNames[index]),
                location: parameter.origin.location))
        }
    }
}
