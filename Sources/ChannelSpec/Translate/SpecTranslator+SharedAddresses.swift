/// Several channels on one address: valid AsyncAPI 3 (streams multiplexed on one socket path, as
/// Kraken's, Slack's and most exchanges' WebSocket APIs are). Each is served; a channel's
/// subscription tells its events from the others' by a property whose value names the message.
extension Translation {
    /// Sets `sharedAddress` on each channel that has its address in common with another. An address
    /// is compared with its parameters as placeholders (`rooms/{id}` and `rooms/{roomId}` are one).
    mutating func routeSharedAddresses(_ channels: inout [Channel]) {
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        // Open addresses are each subscription's own: they share nothing known.
        for (index, channel) in channels.enumerated() where !channel.address.isOpen {
            let shape = channel.address.shape
            if groups[shape] == nil { order.append(shape) }
            groups[shape, default: []].append(index)
        }
        for shape in order {
            guard let members = groups[shape], members.count > 1 else { continue }
            let keys = members.map { channels[$0].key }
            guard let (property, values) = messageNames(of: keys) else {
                let first = channels[members[0]]
                for index in members.dropFirst() {
                    let channel = channels[index]
                    diagnostics.strictWarning(
                        "channel '\(channel.key)' has the same address as '\(first.key)' (\(first.origin.location.file):\(first.origin.location.line):\(first.origin.location.column)) "
                            + "and their events cannot be told apart (no string property that every message fixes with `const`, nor an `eventType` naming each message): "
                            + "each channel's stream also gets the other's events that decode as its own",
                        at: channel.origin.location)
                }
                continue
            }
            for (offset, index) in members.enumerated() {
                let own = values[offset]
                let others = values.enumerated().filter { $0.offset != offset }.reduce(into: Set<String>()) { $0.formUnion($1.element) }
                channels[index].sharedAddress = SharedAddress(property: property, otherChannelsValues: others.subtracting(own).sorted())
            }
        }
    }

    /// The property that names every message of the channels `keys`, and the names of each channel's
    /// messages: a string property each message fixes (`const`, or an enum of one value; a union
    /// message by its variants' tags), else `eventType` naming each message (AppSync's convention).
    private func messageNames(of keys: [String]) -> (property: String, values: [Set<String>])? {
        let messages = keys.map { channelMessages[$0] ?? [] }
        guard let first = messages.first?.first else { return nil }
        for property in candidateProperties(of: first.payload) {
            let named = messages.map { channel in channel.map { values(of: property, in: $0.payload) } }
            if named.allSatisfy({ $0.allSatisfy { $0 != nil } }) {
                return (property, named.map { channel in Set(channel.flatMap { $0 ?? [] }) })
            }
        }
        let all = messages.joined()
        if all.allSatisfy({ $0.name != nil && schemas.hasRequiredString("eventType", in: $0.payload) }) {
            return ("eventType", messages.map { Set($0.flatMap(\.eventTypes)) })
        }
        return nil
    }

    /// The properties a payload fixes, in declaration order (a union: those its variants fix).
    private func candidateProperties(of payload: TypeReference, depth: Int = 0) -> [String] {
        guard depth < 8, let type = schemas.namedType(payload) else { return [] }
        switch type.kind {
        case .object(let properties): return properties.filter { $0.constant != nil }.map(\.jsonName)
        case .union(let union):
            if case .property(let property) = union.decoding { return [property] }
            if case .fixedProperty(let property) = union.decoding { return [property] }
            return union.variants.first.map { candidateProperties(of: $0.type, depth: depth + 1) } ?? []
        case .stringEnum, .composition: return []
        }
    }

    /// The values of `property` that a payload can carry, when it fixes them (a union: when each
    /// of its variants does).
    private func values(of property: String, in payload: TypeReference, depth: Int = 0) -> [String]? {
        guard depth < 8, let type = schemas.namedType(payload) else { return nil }
        switch type.kind {
        case .object: return schemas.constant(property, of: payload).map { [$0] }
        case .union(let union):
            if case .property(property) = union.decoding, union.variants.allSatisfy({ !$0.tags.isEmpty }) {
                return union.variants.flatMap(\.tags)
            }
            var all: [String] = []
            for variant in union.variants {
                guard let values = values(of: property, in: variant.type, depth: depth + 1) else { return nil }
                all += values
            }
            return all.isEmpty ? nil : all
        case .stringEnum, .composition: return nil
        }
    }
}
