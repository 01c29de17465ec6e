@testable import ChannelCodegen
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
}
