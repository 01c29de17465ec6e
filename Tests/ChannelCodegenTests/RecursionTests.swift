@testable import ChannelCodegen
@testable import ChannelSpec
import Testing

/// The cycles `Recursion` boxes: only nodes on a cycle get a component, and each cycle one of its own.
@Suite("Recursion analysis")
struct RecursionTests {
    @Test func onlyNodesOnACycleAreInAComponent() {
        let edges = ["a": ["b"], "b": ["c", "a"], "c": ["d"], "d": [], "e": ["e"], "f": ["a"]]
        let components = Recursion.stronglyConnectedComponents(nodes: ["a", "b", "c", "d", "e", "f"], edges: edges)
        #expect(Set(components.keys) == ["a", "b", "e"])
        #expect(components["a"] == components["b"])
        #expect(components["a"] != components["e"])
    }

    @Test func aLongChainDoesNotExhaustTheStack() {
        // 100 000 types in one loop: the iterative walk needs no deep recursion.
        let nodes = (0..<100_000).map { "t\($0)" }
        var edges: [String: [String]] = [:]
        for (index, node) in nodes.enumerated() { edges[node] = [nodes[(index + 1) % nodes.count]] }
        let components = Recursion.stronglyConnectedComponents(nodes: nodes, edges: edges)
        #expect(components.count == nodes.count)
        #expect(Set(components.values).count == 1)
    }

    /// `First = allOf[Pet, {…}]` with `Pet = oneOf[First, Second]`: decoding `First` reaches `First`
    /// again at the same place, so that member is guarded; a member reached only through a
    /// property (which moves on in the JSON) is boxed but not guarded.
    @Test func aMemberLeadingBackInPlaceIsGuardedAndOneThroughAPropertyIsNot() {
        let origin = Origin(location: SourceLocation(file: "s.yaml", line: 1, column: 1), reference: "#")
        func property(_ name: String, _ type: TypeReference) -> Property {
            Property(jsonName: name, type: type, isOptional: false, documentation: Documentation(), origin: origin)
        }
        func named(_ id: String, _ kind: NamedType.Kind) -> NamedType {
            NamedType(id: id, preferredName: id, kind: kind, documentation: Documentation(), origin: origin, parent: nil)
        }
        func variant(_ id: String) -> UnionVariant { UnionVariant(preferredName: id, type: .named(id), tags: [], origin: origin) }
        let api = ChannelAPI(
            title: "T", version: "1", channels: [], operations: [],
            types: [
                named("First", .composition([property("value1", .named("Pet")), property("value2", .named("Extra"))])),
                named("Pet", .union(Union(decoding: .firstThatDecodes, variants: [variant("First"), variant("Second")]))),
                named("Second", .object([property("name", .string)])),
                named("Extra", .object([property("type", .string)])),
                named("Wrapper", .composition([property("value1", .named("Node")), property("value2", .named("Extra"))])),
                named("Node", .object([property("next", .named("Wrapper"))])),
            ],
            files: [])
        let recursion = Recursion(api: api)
        #expect(recursion.guardedMembers == ["First": [0]])
        #expect(recursion.boxedProperties["First"] == [0])
        #expect(recursion.indirectUnions == ["Pet"])
        // Wrapper → Node → (property) Wrapper: a cycle to box, but one that moves on in the JSON.
        #expect(recursion.boxedProperties["Wrapper"] == [0])
        #expect(recursion.boxedProperties["Node"] == [0])
    }
}
