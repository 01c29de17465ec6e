import ChannelRuntime
import Foundation
import Testing

/// `JSONValue`, the type of untyped schemas: every JSON value decodes, re-encodes to the same value
/// and can be read by key and index.
@Suite("JSONValue")
struct JSONValueTests {
    @Test func everyKindDecodesAndRoundTrips() throws {
        let text = #"{"a":[1,"b",null,true,{"c":2.5}],"d":{},"e":[],"f":false,"g":"x"}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value["a"]?[0] == .number(1))
        #expect(value["a"]?[1] == .string("b"))
        #expect(value["a"]?[2] == .null)
        #expect(value["a"]?[3] == .bool(true))
        #expect(value["a"]?[4]?["c"] == .number(2.5))
        #expect(value["d"] == .object([:]))
        #expect(value["e"] == .array([]))
        #expect(value["f"] == .bool(false))  // not the number 0
        #expect(value["missing"] == nil)
        #expect(value["a"]?[9] == nil)
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    @Test func scalarsAtTheTopLevel() throws {
        for (text, expected) in [("null", JSONValue.null), ("3", .number(3)), ("\"s\"", .string("s")), ("true", .bool(true))] {
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == expected)
        }
    }
}
