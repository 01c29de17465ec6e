import ChannelNaming

/// The outcome of reading a spec: the IR when there were no errors, and every diagnostic.
package struct SpecResult: Sendable {
    package var api: ChannelAPI?
    package var diagnostics: [Diagnostic]
    /// Every file that was read, for build-system inputs.
    package var files: [String]
}

/// Load → resolve → translate: reads an AsyncAPI 3.0 document (the subset of DESIGN §4) into a
/// `ChannelAPI`, checking it as it goes; anything outside the subset is a located error.
package enum SpecTranslator {
    /// - Parameters:
    ///   - path: the spec document.
    ///   - allowedFolder: the folder files may be read from (see `SpecWorkspace`).
    ///   - strict: constructs outside the subset are errors; by default a channel using one is
    ///     skipped with warnings and the rest generates.
    ///   - modelsOnly: only payload models are wanted (any protocol): channels and operations are
    ///     not checked against a transport, and every component schema is a model too.
    ///   - channelRules: the rules of the transport the client targets, that channel addresses are
    ///     checked by (AppSync Events by default).
    ///   - perspective: whose side the document describes (see `SpecPerspective`).
    package static func translate(
        specAt path: String, allowedFolder: String? = nil, strict: Bool = false, modelsOnly: Bool = false,
        channelRules: ChannelNamingRules = .appSyncEvents, perspective: SpecPerspective = .client
    ) -> SpecResult {
        let workspace = SpecWorkspace(rootFile: path, allowedFolder: allowedFolder)
        var translator = Translation(workspace: workspace, strict: strict, modelsOnly: modelsOnly, channelRules: channelRules)
        translator.perspective = perspective
        let api = translator.run()
        var diagnostics = translator.diagnostics
        diagnostics.append(contentsOf: translator.schemas.diagnostics.all)
        if strict {
            diagnostics.promoteStrictWarnings()
        } else {
            diagnostics.demoteOutsideSubsetErrorsBesideOtherErrors()
        }
        let hasErrors = diagnostics.hasErrors
        return SpecResult(api: hasErrors ? nil : api, diagnostics: diagnostics.all, files: workspace.loadedFiles)
    }
}

struct Translation {
    let workspace: SpecWorkspace
    var diagnostics = Diagnostics()
    var schemas: SchemaTranslator
    /// Channel key → file#pointer of its messages after following `$ref`s, to check operation messages.
    var resolvedMessages: ExactKeyDictionary<Set<String>> = [:]
    /// Channel key → file#pointer of the channel after following `$ref`s, to match operations.
    var resolvedChannels: ExactKeyDictionary<String> = [:]
    /// Every key under `channels`, valid or not.
    var declaredChannelKeys: ExactKeyDictionary<Bool> = [:]
    /// Channel key → its messages, before several become one union (to tell channels on one address apart).
    var channelMessages: ExactKeyDictionary<[Message]> = [:]
    /// The names an inline payload may take from its message (see `payloadName(of:otherwise:)`).
    var messageNames = MessageNames()

    /// Whether constructs outside the subset fail the spec instead of skipping their channel.
    let strict: Bool
    /// `generate: models`: payload models only.
    let modelsOnly: Bool
    /// An AsyncAPI 2.x document (read in its 3.0 form), where a payload is always a schema.
    var isVersion2 = false
    /// The target transport's channel rules, that addresses are checked by.
    let channelRules: ChannelNamingRules
    /// Whose side the document describes; `.server` swaps what `send` and `receive` mean.
    var perspective = SpecPerspective.client
    /// The operations' actions as the document writes them (before `perspective`), and the first
    /// `send`: a document of sends alone likely describes the server.
    var writtenActions = (sends: 0, receives: 0, firstSend: SourceLocation?.none)

    init(workspace: SpecWorkspace, strict: Bool, modelsOnly: Bool, channelRules: ChannelNamingRules = .appSyncEvents) {
        self.workspace = workspace
        self.strict = strict
        self.modelsOnly = modelsOnly
        self.channelRules = channelRules
        self.schemas = SchemaTranslator(workspace: workspace)
    }

    mutating func run() -> ChannelAPI? {
        var root: Cursor
        do {
            root = try workspace.root()
        } catch {
            diagnostics.append(contentsOf: error.diagnostics)
            return nil
        }
        guard root.node.entries != nil else {
            diagnostics.error("an AsyncAPI document must be a mapping, found \(root.node.kindDescription)", at: root.location)
            return nil
        }
        guard checkVersion(root) else { return nil }
        if AsyncAPI2.isVersion2(root.node) {
            isVersion2 = true
            root.node = AsyncAPI2.converted(root.node)
        }
        KeyRules.document.check(root, named: "root", into: &diagnostics)
        messageNames = MessageNames(document: root.node)

        // `info` only names and documents the notifier. Drafts and other tools' fixtures leave it
        // out: lenient generation warns and names the API after the file; strict makes it an error.
        let fileName = FilePath.lastComponent(of: workspace.rootFile)
        var title = String(fileName.prefix { $0 != "." }), version = "", description: String?, notifierName: String?
        if let info = root.child("info") {
            KeyRules.info.check(info, named: "", into: &diagnostics)
            if info.node["title"] == nil {
                diagnostics.strictWarning("missing required key 'title' in info; the API is named '\(title)' after its file", at: info.declarationLocation)
            } else {
                title = requiredString("title", in: info, of: "info") ?? ""
            }
            if info.node["version"] == nil {
                diagnostics.strictWarning("missing required key 'version' in info", at: info.declarationLocation)
            } else {
                version = requiredString("version", in: info, of: "info") ?? ""
            }
            description = info.node["description"]?.string
            notifierName = info.node["x-swift-notifier"]?.string
        } else {
            diagnostics.strictWarning("missing required key 'info' in the document; the API is named '\(title)' after its file", at: root.declarationLocation)
        }

        if modelsOnly {
            translateModels(root)
            return ChannelAPI(
                title: title, version: version, description: description, notifierName: notifierName,
                channels: [], operations: [], types: schemas.types, files: workspace.loadedFiles)
        }

        var channels: [Channel] = []
        // `channels` is optional in AsyncAPI 3.0: a document without it describes no streams.
        if let channelsCursor = root.child("channels"), let entries = mapping(channelsCursor, "channels") {
            for (key, _, cursor) in entries {
                let reported = diagnostics.all.count
                let checkpoint = schemas.checkpoint()
                let translated = channel(key: key, cursor)
                if !strict, skipOutsideSubset("channel '\(key)'", at: cursor.location, reported: reported, checkpoint: checkpoint) { continue }
                guard let channel = translated else { continue }
                channels.append(channel)
            }
            routeSharedAddresses(&channels)
        }

        var operations: [ChannelOperation] = []
        var sends: [ChannelOperation] = []
        if let operationsCursor = root.child("operations"), let entries = mapping(operationsCursor, "operations") {
            let lookup = ChannelLookup(channels: channels, resolved: resolvedChannels)
            for (key, keyLocation, cursor) in entries {
                let reported = diagnostics.all.count
                let translated = operation(id: key, keyLocation: keyLocation, cursor, channels: lookup)
                if !strict, diagnostics.onlyOutsideSubsetErrors(from: reported) {
                    diagnostics.demoteErrors(from: reported)
                    diagnostics.warning(
                        "operation '\(key)' is skipped: it uses what channelgen cannot generate (see the warnings at its lines); `strict: true` in channelgen.yaml makes this an error",
                        at: keyLocation)
                    continue
                }
                if let operation = translated {
                    if operation.isSend { sends.append(operation) } else { operations.append(operation) }
                }
            }
        }
        if !isVersion2, perspective == .client, writtenActions.receives == 0, let send = writtenActions.firstSend {
            // AsyncAPI 3 operations are the described application's own: a server's document says
            // `send` for what its clients receive. As written, the client would only publish.
            diagnostics.warning(
                "every operation of this document sends and none receives, so the client gets publish methods and no streams; "
                    + "if the document describes the server (its 'send' is what clients receive), set 'perspective: server' in channelgen.yaml",
                at: send)
        }
        if root.child("channels") == nil {
            diagnostics.warning("the document has no 'channels': nothing is generated but the notifier", at: root.location)
        } else if operations.isEmpty && sends.isEmpty && !channels.isEmpty {
            diagnostics.warning("no 'receive' or 'send' operations: the notifier will have no methods", at: root.child("operations")?.location ?? root.location)
        }

        return ChannelAPI(
            title: title, version: version, description: description, notifierName: notifierName,
            channels: channels, operations: operations, sends: sends, types: schemas.types, files: workspace.loadedFiles,
            channelRules: channelRules)
    }

    /// Lenient generation: when everything wrong with channel `key` is outside the subset, its errors
    /// become warnings, the types it introduced are forgotten and it is skipped (its operations too).
    /// `whateverTheError`: skip for any error, not only for what is outside the subset (models mode).
    mutating func skipOutsideSubset(
        _ what: String, at location: SourceLocation, reported: Int, checkpoint: SchemaTranslator.Checkpoint, whateverTheError: Bool = false
    ) -> Bool {
        let ownErrors = diagnostics.all[reported...].contains { $0.severity == .error }
        let schemaErrors = schemas.diagnostics.all[checkpoint.diagnosticCount...].contains { $0.severity == .error }
        guard ownErrors || schemaErrors else { return false }
        // A broken `$ref` is the document's fault, not a construct to skip.
        if diagnostics.hasBrokenReferenceErrors(from: reported) || schemas.diagnostics.hasBrokenReferenceErrors(from: checkpoint.diagnosticCount) {
            return false
        }
        guard whateverTheError
            || ((!ownErrors || diagnostics.onlyOutsideSubsetErrors(from: reported))
                && (!schemaErrors || schemas.diagnostics.onlyOutsideSubsetErrors(from: checkpoint.diagnosticCount)))
        else { return false }
        diagnostics.demoteErrors(from: reported)
        schemas.diagnostics.demoteErrors(from: checkpoint.diagnosticCount)
        // Types are forgotten only when they are what failed: a channel skipped for its address
        // keeps its payload types (`translatePayloadsOnly`).
        if schemaErrors { schemas.rollBack(to: checkpoint) }
        diagnostics.warning(
            "\(what) is skipped: it uses what channelgen cannot generate (see the warnings at its lines); `strict: true` in channelgen.yaml makes this an error",
            at: location)
        return true
    }

    // MARK: Document

    private mutating func checkVersion(_ root: Cursor) -> Bool {
        guard let versionNode = root.node["asyncapi"] else {
            if root.node["openapi"] != nil || root.node["swagger"] != nil {
                diagnostics.error("this is an OpenAPI document; point channelgen at the AsyncAPI 3.0 spec that references it", at: root.location)
            } else {
                diagnostics.error("missing required key 'asyncapi' (channelgen reads AsyncAPI 3.0, 3.1 and 2.x documents)", at: root.location)
            }
            return false
        }
        // `asyncapi: 3.0` is the number 3 to YAML and JSON, not a version; the schema asks for a string.
        guard versionNode.isJSONString else {
            let found = versionNode.scalar.map { $0.isNull ? "null" : "\(versionNode.kindDescription) (\($0.text))" } ?? versionNode.kindDescription
            diagnostics.error("'asyncapi' must be a string such as '3.0.0', found \(found); write the version in quotes", at: versionNode.location)
            return false
        }
        // 3.1 only adds to 3.0 (bindings, extensions), as a minor version must: read as 3.0.
        guard let version = versionNode.scalar?.text, version.hasPrefix("3.0") || version.hasPrefix("3.1") || version.hasPrefix("2.") else {
            let shown = versionNode.scalar?.text ?? versionNode.kindDescription
            diagnostics.error("AsyncAPI \(shown) is not supported; channelgen reads AsyncAPI 3.0, 3.1 and 2.x documents", at: versionNode.location)
            return false
        }
        return true
    }

    // MARK: Channels

    /// A channel that cannot be served for its address still has its payload types generated: an
    /// app's code using them keeps compiling, and the one warning about the address says what is
    /// missing (instead of the compiler's errors about every type it took with it).
    /// A payload that fails costs no more than it did before: its types are forgotten and its errors
    /// are warnings of the skipped channel, as when the payload was never read.
    private mutating func translatePayloadsOnly(of cursor: Cursor, channelKey key: String) {
        guard let messages = cursor.child("messages"), messages.node.entries != nil else { return }
        let count = messages.children.count
        for (messageKey, _, reference) in messages.children {
            let reported = diagnostics.all.count
            let checkpoint = schemas.checkpoint()
            _ = message(key: messageKey, reference, channelKey: key, payloadName: payloadName(channel: key, message: messageKey, messageCount: count))
            let failed = diagnostics.all[reported...].contains { $0.severity == .error }
                || schemas.diagnostics.all[checkpoint.diagnosticCount...].contains { $0.severity == .error }
            guard failed else { continue }
            diagnostics.demoteErrors(from: reported)
            schemas.diagnostics.demoteErrors(from: checkpoint.diagnosticCount)
            schemas.rollBack(to: checkpoint)
        }
    }

    private mutating func channel(key: String, _ reference: Cursor) -> Channel? {
        declaredChannelKeys[key] = true
        guard let cursor = resolve(reference), mapping(cursor, "channel '\(key)'") != nil else { return nil }
        resolvedChannels[key] = SchemaTranslator.id(of: cursor)
        KeyRules.channel.check(cursor, named: "'\(key)'", into: &diagnostics)
        let origin = Origin(location: reference.declarationLocation, reference: workspace.displayReference(reference))

        // AsyncAPI 3: an absent or null address is known only at runtime. The channel is served
        // with its path left to each subscription (`init(channel:)`), checked by the transport's rules.
        let address: ChannelAddressTemplate
        let addressNode = cursor.node["address"]
        if addressNode == nil || addressNode?.scalar?.isNull == true {
            address = .open
        } else if let addressNode, let addressText = addressNode.string {
            guard let parsed = parseAddress(addressText, at: addressNode.location) else {
                translatePayloadsOnly(of: cursor, channelKey: key)
                return nil
            }
            address = parsed
        } else {
            diagnostics.error("the 'address' of channel '\(key)' must be a string or null", at: addressNode?.location)
            translatePayloadsOnly(of: cursor, channelKey: key)
            return nil
        }

        var parameters: [ChannelParameter] = []
        var declared: Set<String> = []
        if let parametersCursor = cursor.child("parameters"), let entries = mapping(parametersCursor, "parameters of channel '\(key)'") {
            for (name, keyLocation, parameterReference) in entries {
                declared.insert(name)
                guard let parameter = checkedParameter(name, parameterReference) else { continue }
                // A leftover declaration changes nothing generated: a warning (strict: an error).
                guard address.parameterNames.contains(name) else {
                    diagnostics.strictWarning("parameter '\(name)' of channel '\(key)' does not appear in its address '\(address.shown)'", at: keyLocation)
                    continue
                }
                parameters.append(ChannelParameter(
                    name: name,
                    documentation: Documentation(description: parameter.node["description"]?.string),
                    // 3.0 puts `enum` on the parameter, 2.x on its `schema`.
                    allowedValues: (parameter.node["enum"] ?? parameter.node["schema"]?["enum"])?.items?.compactMap(\.string) ?? [],
                    origin: Origin(location: keyLocation, reference: workspace.displayReference(parameterReference))))
            }
        }
        for name in address.parameterNames where !declared.contains(name) {
            diagnostics.error("address parameter '{\(name)}' of channel '\(key)' has no definition under 'parameters'", at: addressNode?.location)
        }
        // Keep parameters in address order.
        parameters.sort { a, b in
            (address.parameterNames.firstIndex(of: a.name) ?? 0) < (address.parameterNames.firstIndex(of: b.name) ?? 0)
        }
        // At runtime parameters are keyed by name (`[String: ChannelSegment]`), where Swift calls
        // canonically equivalent names (`été` written two ways) equal: they could not be told apart.
        for (index, parameter) in parameters.enumerated() {
            guard let earlier = parameters[..<index].first(where: { $0.name == parameter.name }) else { continue }
            diagnostics.unsupported(
                "parameters '\(earlier.name)' and '\(parameter.name)' of channel '\(key)' differ only in Unicode normalization; "
                    + "the runtime keys parameters by name and cannot tell them apart (rename one)",
                at: parameter.origin.location)
            return nil
        }

        // AsyncAPI allows a channel without messages (declared for later, or typed elsewhere); there
        // is nothing to type its stream with, so it is outside the subset.
        guard let messagesCursor = cursor.child("messages") else {
            diagnostics.unsupported("channel '\(key)' has no 'messages'; channelgen types each channel by its messages", at: cursor.declarationLocation)
            return nil
        }
        guard let messageEntries = mapping(messagesCursor, "messages of channel '\(key)'") else { return nil }
        guard !messageEntries.isEmpty else {
            diagnostics.unsupported("channel '\(key)' has no messages; channelgen types each channel by its messages", at: messagesCursor.location)
            return nil
        }
        var messages: [Message] = []
        for (messageKey, messageKeyLocation, messageReference) in messageEntries {
            let payloadName = payloadName(channel: key, message: messageKey, messageCount: messageEntries.count)
            let reported = diagnostics.all.count
            let checkpoint = schemas.checkpoint()
            let translated = message(key: messageKey, messageReference, channelKey: key, payloadName: payloadName)
            // A message channelgen cannot serve (binary, an unsupported schema) costs only itself:
            // the channel's other messages are still served. (A channel's only message: the channel.)
            if !strict, messageEntries.count > 1, skipOutsideSubset("message '\(messageKey)' of channel '\(key)'", at: messageKeyLocation, reported: reported, checkpoint: checkpoint) {
                continue
            }
            guard let message = translated else { return nil }
            messages.append(message)
        }
        guard !messages.isEmpty else {
            diagnostics.unsupported("channel '\(key)' has no message channelgen can generate", at: messagesCursor.location)
            return nil
        }
        // A channel's events are all JSON or all text: text beside JSON is skipped alone.
        if messages.contains(where: \.isText), messages.contains(where: { !$0.isText }) {
            for text in messages where text.isText {
                diagnostics.strictWarning(
                    "message '\(text.key)' of channel '\(key)' is text beside JSON messages; it is skipped (a channel's events are either JSON or text)",
                    at: text.origin.location)
            }
            messages.removeAll(where: \.isText)
        }
        let isOwnStream = flag("x-request-stream", of: cursor, in: "channel '\(key)'")
        let (finalEventNames, errorEventNames) = ownStreamNames(of: &messages, channel: key, isOwnStream: isOwnStream)
        channelMessages[key] = messages
        if messages.allSatisfy(\.isText) {
            // Text messages are all `String`s: nothing to tell apart.
            let only = messages.count == 1 ? messages[0] : Message(
                key: "messages", name: nil, payload: .string, documentation: Documentation(), origin: messages[0].origin, isText: true)
            return Channel(
                key: key, swiftName: cursor.node["x-swift-name"]?.string, address: address, parameters: parameters,
                message: only, documentation: documentation(cursor), origin: origin,
                isOwnStream: isOwnStream, finalEventNames: finalEventNames, errorEventNames: errorEventNames)
        }
        // Several messages on one channel (a multiplexed socket): the channel carries an enum of them.
        let message = messages.count == 1 ? messages[0] : schemas.messageUnion(
            of: messages, name: upperFirst(key) + "Message", declaredAt: messagesCursor,
            reference: workspace.displayReference(messagesCursor), selectedByName: isOwnStream)

        return Channel(
            key: key, swiftName: cursor.node["x-swift-name"]?.string, address: address, parameters: parameters,
            message: message, documentation: documentation(cursor), origin: origin,
            isOwnStream: isOwnStream, finalEventNames: finalEventNames, errorEventNames: errorEventNames)
    }

    /// The target transport's channel rules (AppSync Events: 1–5 segments of `[A-Za-z0-9-]`, 1–50
    /// chars, no leading or trailing `-`; Server-Sent Events: topics of up to 32 segments);
    /// `{name}` parameters stand for whole or partial segments and are validated again at runtime.
    private mutating func parseAddress(_ text: String, at location: SourceLocation) -> ChannelAddressTemplate? {
        let rules = channelRules
        func fail(_ reason: String) -> ChannelAddressTemplate? {
            diagnostics.error("invalid channel address '\(text)': \(reason)", at: location)
            return nil
        }
        // Well-formed, but the transport's channel rules cannot carry it (MQTT, Kafka, raw WebSocket addresses).
        func unsupported(_ reason: String) -> ChannelAddressTemplate? {
            diagnostics.unsupported("invalid channel address '\(text)': \(reason)", at: location)
            return nil
        }
        var body = Substring(text)
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.isEmpty {
            // The root (`/`): a topic like any other where the transport has no namespaces.
            guard !rules.firstSegmentIsNamespace, text == "/" else { return unsupported("it has no segments") }
            return ChannelAddressTemplate(text: text, segments: [])
        }
        let rawSegments = body.split(separator: "/", omittingEmptySubsequences: false)
        if !rules.allowsSegmentCount(rawSegments.count) {
            return unsupported("it has \(rawSegments.count) segments; \(rules.transportName) allows at most \(rules.maximumSegments)")
        }
        var segments: [[ChannelAddressTemplate.Part]] = []
        for raw in rawSegments {
            // Other transports allow both (MQTT `a//b`, NATS `a.*`); AppSync cannot carry them.
            if raw.isEmpty {
                guard rules.allowsEmptySegments else { return unsupported("it has an empty segment") }
                segments.append([])
                continue
            }
            if raw.utf8.contains(UInt8(ascii: "*")) { return unsupported("wildcards ('*') are for subscribers, not channel definitions") }
            var parts: [ChannelAddressTemplate.Part] = []
            var rest = raw
            while !rest.isEmpty {
                if rest.first == "{" {
                    guard let close = rest.firstIndex(of: "}") else { return fail("'{' without a closing '}'") }
                    let name = rest[rest.index(after: rest.startIndex)..<close]
                    if name.isEmpty { return fail("empty parameter '{}'") }
                    parts.append(.parameter(String(name)))
                    rest = rest[rest.index(after: close)...]
                } else {
                    let end = rest.firstIndex(of: "{") ?? rest.endIndex
                    let literal = rest[..<end]
                    if let bad = literal.unicodeScalars.first(where: { !rules.allows($0) }) {
                        return unsupported("segment '\(raw)' contains '\(bad)'; channel segments allow only \(rules.allowedCharacters)")
                    }
                    parts.append(.literal(String(literal)))
                    rest = rest[end...]
                }
            }
            if parts.count == 1, case .literal(let literal) = parts[0] {
                switch rules.problem(inSegment: literal) {
                case .tooLong: return unsupported("segment '\(literal)' is longer than \(rules.maximumSegmentLength) characters")
                case .edgeHyphen: return unsupported("segment '\(literal)' starts or ends with '-'")
                case nil, .empty, .invalidCharacter: break  // checked above
                }
            }
            segments.append(parts)
        }
        if rules.firstSegmentIsNamespace, case .parameter = segments[0].first, segments[0].count == 1 {
            return unsupported("the first segment is the namespace and must be literal")
        }
        return ChannelAddressTemplate(text: text, segments: segments)
    }

    // MARK: Messages

    mutating func message(key: String, _ reference: Cursor, channelKey: String, payloadName: String) -> Message? {
        guard let resolved = resolve(reference), mapping(resolved, "message '\(key)'") != nil,
              let cursor = applyingTraits(resolved, of: "message '\(key)'") else { return nil }
        // Headers, traits and bindings belong to a transport; models of the payload do not need them.
        (modelsOnly ? KeyRules.messageModel : KeyRules.message).check(cursor, named: "'\(key)'", into: &diagnostics)
        // Registered before anything can skip it: an operation may list a message that is skipped.
        resolvedMessages[channelKey, default: []].insert(SchemaTranslator.id(of: cursor))
        let name = cursor.node["name"]?.string
        let origin = Origin(location: reference.declarationLocation, reference: workspace.displayReference(reference))
        let aliases = eventTypeAliases(of: cursor, message: key, name: name)
        let payloadName = messageNames.payloadName(of: cursor.node) ?? payloadName
        guard var message = messageBody(key: key, cursor, name: name, origin: origin, payloadName: payloadName) else { return nil }
        message.eventTypeAliases = aliases
        message.endsStream = flag("x-ends-stream", of: cursor, in: "message '\(key)'")
        message.isStreamError = flag("x-stream-error", of: cursor, in: "message '\(key)'")
        return message
    }

    /// The message of `cursor` but for its aliases: text, JSON with no payload, or its payload's type.
    private mutating func messageBody(key: String, _ cursor: Cursor, name: String?, origin: Origin, payloadName: String) -> Message? {
        // An empty `contentType` names none: as if it were absent (JSON).
        if let contentType = cursor.node["contentType"]?.string, !contentType.isEmpty, !contentType.contains("json") {
            // Text (`text/plain`, `text/csv`, …) is a `String` event on either transport; binary
            // (audio, images, msgpack, protobuf, XML) cannot travel as JSON or SSE text.
            if contentType.lowercased().hasPrefix("text/") {
                return Message(key: key, name: name, payload: .string, documentation: documentation(cursor), origin: origin, isText: true)
            }
            diagnostics.unsupported(
                "message '\(key)' has contentType '\(contentType)'; channelgen generates JSON and text (`text/*`) payloads",
                at: cursor.node["contentType"]?.location)
            return nil
        }
        guard var payload = cursor.child("payload") else {
            // `payload` is optional: the message says an event happens, not what it carries.
            return Message(key: key, name: name, payload: .json, documentation: documentation(cursor), origin: origin)
        }
        // AsyncAPI 2.x names the payload's format on the message.
        if let format = cursor.node["schemaFormat"], let text = format.string, !Self.isSupportedSchemaFormat(text) {
            diagnostics.unsupported(
                "schemaFormat '\(text)' is not supported; channelgen reads JSON Schema, OpenAPI and AsyncAPI schemas", at: format.location)
            return nil
        }
        // AsyncAPI 3 wraps a payload in a multi-format schema object when it has `schema`; in 2.x a
        // payload is always a schema (its format is the message's `schemaFormat`, checked above),
        // and a `schema` key in it is a keyword JSON Schema does not know.
        if !isVersion2, payload.node["schemaFormat"] != nil || payload.node["schema"] != nil {
            let format = payload.node["schemaFormat"]?.string ?? ""
            guard Self.isSupportedSchemaFormat(format) else {
                diagnostics.unsupported(
                    "schemaFormat '\(format)' is not supported; channelgen reads JSON Schema, OpenAPI and AsyncAPI schemas",
                    at: payload.node["schemaFormat"]?.location ?? payload.location)
                return nil
            }
            // Without `schema` the object is a schema itself, whose `schemaFormat` is an unknown keyword.
            if let schema = payload.child("schema") {
                KeyRules.multiFormatSchema.check(payload, named: "of message '\(key)'", into: &diagnostics)
                payload = schema
            }
        }
        guard let type = schemas.type(of: payload, name: payloadName, parent: nil) else { return nil }
        return Message(key: key, name: name, payload: type, documentation: documentation(cursor), origin: origin)
    }

    // MARK: Operations

    /// Channels by key and by resolved target, so matching operations stays linear in their number.
    private struct ChannelLookup {
        var byKey: ExactKeyDictionary<Channel> = [:]
        var byTarget: [String: Channel] = [:]

        init(channels: [Channel], resolved: ExactKeyDictionary<String>) {
            for channel in channels {
                byKey[channel.key] = channel
                if let target = resolved[channel.key], byTarget[target] == nil { byTarget[target] = channel }
            }
        }
    }

    private mutating func operation(id: String, keyLocation: SourceLocation, _ reference: Cursor, channels: ChannelLookup) -> ChannelOperation? {
        guard let resolved = resolve(reference), mapping(resolved, "operation '\(id)'") != nil,
              let cursor = applyingTraits(resolved, of: "operation '\(id)'") else { return nil }
        KeyRules.operation.check(cursor, named: "'\(id)'", into: &diagnostics)
        guard let actionNode = cursor.node["action"] else {
            diagnostics.error("missing required key 'action' in operation '\(id)'", at: cursor.declarationLocation)
            return nil
        }
        var isSend: Bool
        switch actionNode.string {
        case "receive":
            isSend = false
            writtenActions.receives += 1
        case "send":
            isSend = true
            writtenActions.sends += 1
            writtenActions.firstSend = writtenActions.firstSend ?? actionNode.location
        default:
            diagnostics.error("operation '\(id)' has action '\(actionNode.scalar?.text ?? "")'; expected 'send' or 'receive'", at: actionNode.location)
            return nil
        }
        // A document of the server's side: what it sends, the client receives, and the other way round.
        if perspective == .server { isSend.toggle() }
        guard let channelReference = cursor.child("channel") else {
            diagnostics.error("missing required key 'channel' in operation '\(id)'", at: cursor.declarationLocation)
            return nil
        }
        guard channelReference.isReference else {
            diagnostics.error("operation '\(id)' must name its channel with a $ref such as '#/channels/<key>'", at: channelReference.location)
            return nil
        }
        guard let target = resolve(channelReference) else { return nil }
        // The channel is named by its key under '#/channels', or reached through the same chain of
        // `$ref`s as a channel declared there (a channel kept in another file).
        let named = localChannelKey(channelReference)
        let targetID = SchemaTranslator.id(of: target)
        guard let channel = named.flatMap({ channels.byKey[$0] }) ?? channels.byTarget[targetID] else {
            if let named, declaredChannelKeys[named] == true {
                return nil  // the channel itself was reported
            }
            diagnostics.error("operation '\(id)' must reference a channel under '#/channels'", at: channelReference.node["$ref"]?.location)
            return nil
        }
        // A publish goes to the channel of the source's parameters; an open address has none.
        if isSend, channel.address.isOpen {
            diagnostics.unsupported(
                "operation '\(id)' sends to channel '\(channel.key)', whose address is open (known only at runtime); channelgen publishes only to addresses the spec gives",
                at: keyLocation)
            return nil
        }
        if let messages = cursor.child("messages") {
            for element in messages.elements {
                guard let message = resolve(element) else { continue }
                if resolvedMessages[channel.key]?.contains(SchemaTranslator.id(of: message)) != true {
                    diagnostics.error("operation '\(id)' lists a message that is not a message of channel '\(channel.key)'", at: element.location)
                }
            }
        }
        return ChannelOperation(
            id: id, swiftName: cursor.node["x-swift-name"]?.string, channelKey: channel.key,
            documentation: documentation(cursor),
            origin: Origin(location: keyLocation, reference: workspace.displayReference(reference)), isSend: isSend)
    }

    // MARK: Helpers

    /// `key` when `cursor` is `$ref: '#/channels/<key>'` in the root document.
    private func localChannelKey(_ cursor: Cursor) -> String? {
        guard cursor.file == workspace.rootFile, let ref = cursor.node["$ref"]?.string, ref.hasPrefix("#"),
              let pointer = JSONPointer.percentDecoded(String(ref.dropFirst())), let tokens = JSONPointer.tokens(pointer),
              tokens.count == 2, tokens[0] == "channels" else { return nil }
        return tokens[1]
    }

    mutating func resolve(_ cursor: Cursor) -> Cursor? {
        do {
            return try workspace.resolve(cursor)
        } catch {
            diagnostics.append(contentsOf: error.diagnostics)
            return nil
        }
    }

    mutating func mapping(_ cursor: Cursor, _ what: String) -> [(key: String, keyLocation: SourceLocation, cursor: Cursor)]? {
        guard cursor.node.entries != nil else {
            diagnostics.error("\(what) must be a mapping, found \(cursor.node.kindDescription)", at: cursor.location)
            return nil
        }
        return cursor.children
    }

    private mutating func required(_ key: String, in cursor: Cursor, of what: String) -> Cursor? {
        guard let child = cursor.child(key) else {
            diagnostics.error("missing required key '\(key)' in \(what)", at: cursor.declarationLocation)
            return nil
        }
        return child
    }

    private mutating func requiredString(_ key: String, in cursor: Cursor, of what: String) -> String? {
        guard let child = required(key, in: cursor, of: what) else { return nil }
        guard let text = child.node.scalar?.text, !(child.node.scalar?.isNull ?? true) else {
            diagnostics.error("'\(key)' in \(what) must be a string, found \(child.node.kindDescription)", at: child.location)
            return nil
        }
        return text
    }

    /// A channel parameter's declaration, resolved and checked: a mapping, its keys, its values;
    /// `nil` when it cannot be read (reported).
    mutating func checkedParameter(_ name: String, _ reference: Cursor) -> Cursor? {
        guard let parameter = resolve(reference) else { return nil }
        guard parameter.node.entries != nil else {
            diagnostics.error("parameter '\(name)' must be a mapping, found \(parameter.node.kindDescription)", at: parameter.location)
            return nil
        }
        KeyRules.parameter.check(parameter, named: "'\(name)'", into: &diagnostics)
        checkParameterValues(parameter, named: name)
        return parameter
    }

    /// AsyncAPI 3 says a parameter's `description`, `default`, `enum` values and `examples` are
    /// strings. Others change nothing generated (an `enum` value is read as its text): a warning
    /// (strict: an error).
    private mutating func checkParameterValues(_ parameter: Cursor, named name: String) {
        for key in ["description", "default", "location"] {
            guard let value = parameter.node[key], !value.isJSONString else { continue }
            diagnostics.strictWarning("'\(key)' of parameter '\(name)' must be a string, found \(value.kindDescription)", at: value.location)
        }
        for key in ["enum", "examples"] {
            guard let list = parameter.child(key) else { continue }
            guard list.node.items != nil else {
                diagnostics.strictWarning("'\(key)' of parameter '\(name)' must be a list of strings, found \(list.node.kindDescription)", at: list.location)
                continue
            }
            for value in list.elements where !value.node.isJSONString {
                diagnostics.strictWarning(
                    "each of '\(key)' of parameter '\(name)' must be a string, found \(value.node.kindDescription)", at: value.location)
            }
        }
    }

    private func documentation(_ cursor: Cursor) -> Documentation {
        Documentation(summary: cursor.node["summary"]?.string ?? cursor.node["title"]?.string, description: cursor.node["description"]?.string)
    }

    /// An operation or message with its `traits` merged in: each trait's keys the object does not
    /// set itself (the object's own values win, as AsyncAPI's merge says), traits in order.
    mutating func applyingTraits(_ cursor: Cursor, of what: String) -> Cursor? {
        guard let traits = cursor.child("traits") else { return cursor }
        guard traits.node.items != nil else {
            diagnostics.error("'traits' of \(what) must be a list, found \(traits.node.kindDescription)", at: traits.location)
            return nil
        }
        var entries = (cursor.node.entries ?? []).filter { $0.key != "traits" }
        for element in traits.elements {
            guard let trait = resolve(element), let traitEntries = mapping(trait, "a trait of \(what)") else { return nil }
            for entry in traitEntries where !entries.contains(where: { $0.key.utf8.elementsEqual(entry.key.utf8) }) {
                entries.append(YAMLNode.Entry(key: entry.key, keyLocation: entry.keyLocation, value: entry.cursor.node))
            }
        }
        var merged = cursor
        merged.node = YAMLNode(.mapping(entries), at: cursor.node.location)
        return merged
    }

    /// An inline payload is named after its message's `name` or `title` where no other message or
    /// component schema has that name (`MessageNames`); else after its channel, or after its
    /// message's key when the channel has several.
    func payloadName(channel: String, message: String, messageCount: Int) -> String {
        upperFirst(messageCount == 1 ? channel : message) + "Payload"
    }

    /// An empty or absent format is the default (an AsyncAPI schema).
    static func isSupportedSchemaFormat(_ format: String) -> Bool {
        format.isEmpty || format.hasPrefix("application/schema+json") || format.hasPrefix("application/schema+yaml")
            || format.hasPrefix("application/vnd.oai.openapi") || format.hasPrefix("application/vnd.aai.asyncapi")
    }

    func upperFirst(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
