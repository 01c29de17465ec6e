import ChannelSpec

/// Which values must be stored on the heap so that a type can contain itself.
///
/// A struct holds its properties inline, and an enum its cases' values, so `struct Pet { var
/// parent: Pet? }` has no size. Arrays and dictionaries already store their elements on the heap.
/// The types that contain one another inline form cycles (strongly connected components of the
/// "stores inline" graph); inside a cycle, unions are declared `indirect` and struct properties
/// are boxed. Everything outside a cycle is generated as before.
///
/// A cycle through union variants and `allOf` members only (`First = allOf[Pet, …]`,
/// `Pet = oneOf[First, …]`) decodes the same JSON again and again: those members are decoded
/// under a guard that fails instead of recursing forever (`guardedMembers`).
struct Recursion {
    /// Type id → indexes of the properties stored boxed.
    private(set) var boxedProperties: [String: Set<Int>] = [:]
    /// Unions declared `indirect enum`.
    private(set) var indirectUnions: Set<String> = []
    /// Composition id → indexes of the members that may reach it again at the same place in the JSON.
    private(set) var guardedMembers: [String: Set<Int>] = [:]

    init(api: ChannelAPI) {
        // Edges: a property or variant whose type is a named type (optionals included, containers
        // not); `inPlace` keeps only those that decode the same JSON value (variants and members).
        var edges: [String: [String]] = [:]
        var inPlace: [String: [String]] = [:]
        for type in api.types {
            switch type.kind {
            case .object(let properties):
                edges[type.id] = properties.compactMap { if case .named(let id) = $0.type { id } else { nil } }
            case .composition(let members):
                edges[type.id] = members.compactMap { if case .named(let id) = $0.type { id } else { nil } }
                inPlace[type.id] = edges[type.id]
            case .union(let union):
                edges[type.id] = union.variants.compactMap { if case .named(let id) = $0.type { id } else { nil } }
                inPlace[type.id] = edges[type.id]
            case .stringEnum:
                break
            }
        }
        let component = Self.stronglyConnectedComponents(nodes: api.types.map(\.id), edges: edges)
        let loop = inPlace.isEmpty ? [:] : Self.stronglyConnectedComponents(nodes: api.types.map(\.id), edges: inPlace)
        for type in api.types {
            guard let own = component[type.id] else { continue }
            switch type.kind {
            case .object(let properties), .composition(let properties):
                let boxed = properties.indices.filter { index in
                    if case .named(let id) = properties[index].type { component[id] == own } else { false }
                }
                if !boxed.isEmpty { boxedProperties[type.id] = Set(boxed) }
                if case .composition = type.kind, let ownLoop = loop[type.id] {
                    let guarded = properties.indices.filter { index in
                        if case .named(let id) = properties[index].type { loop[id] == ownLoop } else { false }
                    }
                    if !guarded.isEmpty { guardedMembers[type.id] = Set(guarded) }
                }
            case .union(let union):
                if union.variants.contains(where: { if case .named(let id) = $0.type { component[id] == own } else { false } }) {
                    indirectUnions.insert(type.id)
                }
            case .stringEnum:
                break
            }
        }
    }

    /// Tarjan's algorithm, iterative (specs may chain thousands of types): node → component number,
    /// for nodes on a cycle only (a component of several nodes, or a node with an edge to itself).
    static func stronglyConnectedComponents(nodes: [String], edges: [String: [String]]) -> [String: Int] {
        var index: [String: Int] = [:]
        var lowLink: [String: Int] = [:]
        var onStack: Set<String> = []
        var stack: [String] = []
        var result: [String: Int] = [:]
        var nextIndex = 0
        var componentCount = 0
        for root in nodes where index[root] == nil {
            // Each frame: the node and how many of its edges were followed.
            var frames: [(node: String, edge: Int)] = [(root, 0)]
            index[root] = nextIndex; lowLink[root] = nextIndex; nextIndex += 1
            stack.append(root); onStack.insert(root)
            while let frame = frames.last {
                let successors = edges[frame.node] ?? []
                if frame.edge < successors.count {
                    frames[frames.count - 1].edge += 1
                    let next = successors[frame.edge]
                    if index[next] == nil {
                        index[next] = nextIndex; lowLink[next] = nextIndex; nextIndex += 1
                        stack.append(next); onStack.insert(next)
                        frames.append((next, 0))
                    } else if onStack.contains(next) {
                        lowLink[frame.node] = min(lowLink[frame.node]!, index[next]!)
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last {
                    lowLink[parent.node] = min(lowLink[parent.node]!, lowLink[frame.node]!)
                }
                guard lowLink[frame.node] == index[frame.node] else { continue }
                var members: [String] = []
                while let member = stack.popLast() {
                    onStack.remove(member)
                    members.append(member)
                    if member == frame.node { break }
                }
                let selfLoop = (edges[frame.node] ?? []).contains(frame.node)
                if members.count > 1 || selfLoop {
                    for member in members { result[member] = componentCount }
                    componentCount += 1
                }
            }
        }
        return result
    }
}
