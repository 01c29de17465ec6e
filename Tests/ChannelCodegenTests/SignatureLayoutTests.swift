@testable import ChannelCodegen
import Testing

/// How the renderer lays out a function's signature. A requirement stays on one line when it fits
/// in `TextRenderer.lineWidth` characters or has at most two parameters; a function with a body
/// when it fits and has at most two. Otherwise each parameter has a line. The width is counted in
/// characters, not UTF-8 bytes, and keywords get backticks.
@Suite("Signature layout")
struct SignatureLayoutTests {
    private func rendered(_ function: Function) -> String {
        TextRenderer.render(SwiftFile(header: [], imports: [], declarations: [Declaration(.function(function))]))
    }

    private func function(_ parameters: [(label: String, type: String)], body: [Statement]? = []) -> Function {
        Function(
            access: .public, name: .function(Identifier("make")),
            parameters: parameters.map { Parameter(label: Identifier($0.label), type: Code(pieces: [.syntax($0.type)])) },
            effects: "throws", returnType: "Int", body: body)
    }

    @Test func aRequirementThatFitsInCharactersStaysOnOneLineWhateverItsBytes() {
        // 3 × 12 characters of CJK: 36 characters, 108 bytes. The line is 90 characters wide.
        let name = String(repeating: "日", count: 12)
        let text = rendered(function([(name + "a", "Int"), (name + "b", "Int"), (name + "c", "Int")], body: nil))
        let expected = "public func make(\(name)a: Int, \(name)b: Int, \(name)c: Int) throws -> Int\n"
        #expect(text == expected)
        #expect(expected.utf8.count > TextRenderer.lineWidth)
    }

    @Test func aRequirementWiderThanTheLineHasOneParameterPerLine() {
        let name = String(repeating: "日", count: 30)
        let text = rendered(function([(name + "a", "Int"), (name + "b", "Int"), (name + "c", "Int")], body: nil))
        #expect(text == """
            public func make(
                \(name)a: Int,
                \(name)b: Int,
                \(name)c: Int,
            ) throws -> Int

            """)
    }

    @Test func aFunctionWithABodyStaysOnOneLineOnlyWithAtMostTwoParametersThatFit() {
        #expect(rendered(function([("a", "Int"), ("b", "Int")])) == "public func make(a: Int, b: Int) throws -> Int {}\n")
        #expect(rendered(function([("a", "Int"), ("b", "Int"), ("c", "Int")], body: [.code("0")])) == """
            public func make(
                a: Int,
                b: Int,
                c: Int,
            ) throws -> Int {
                0
            }

            """)
    }

    @Test func aRequirementWithTwoParametersStaysOnOneLineHoweverWide() {
        let name = String(repeating: "x", count: 60)
        let text = rendered(function([(name, "Int"), ("class", "String")], body: nil))
        #expect(text == "public func make(\(name): Int, `class`: String) throws -> Int\n")
    }

    @Test func keywordsAreQuotedAndOtherNamesAreNot() {
        for keyword in SwiftIdentifiers.keywords {
            #expect(SwiftIdentifiers.isKeyword(keyword), "\(keyword)")
            #expect(TextRenderer.identifier(Identifier(keyword)) == "`\(keyword)`")
        }
        for name in ["Class", "classes", "selfie", "日付", "", "`", "initialize", "asyncs", "associatedtypes", "precedencegroupX"] {
            #expect(!SwiftIdentifiers.isKeyword(name), "\(name)")
        }
    }
}
