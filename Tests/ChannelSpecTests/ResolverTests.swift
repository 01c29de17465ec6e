import ChannelSpec
import Foundation
import Testing

@Suite("$ref resolution")
struct ResolverTests {
    /// Writes files into a fresh folder and returns its path.
    func folder(_ files: [String: String]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("resolver-\(UUID().uuidString)")
        for (name, text) in files {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return url.path
    }

    @Test func localAndCrossFileReferencesWithEscapes() throws {
        let dir = try folder([
            "root.yaml": """
                local: {$ref: '#/defs/a~1b'}
                tilde: {$ref: '#/defs/c~0d'}
                remote: {$ref: './lib/types.yaml#/schemas/Thing'}
                percent: {$ref: './lib/types.yaml#/schemas/With%20Space'}
                defs:
                  a/b: {type: string}
                  c~d: {type: integer}
                """,
            "lib/types.yaml": """
                schemas:
                  Thing: {$ref: '#/schemas/Real'}
                  Real: {type: boolean}
                  With Space: {type: number}
                """,
        ])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml")
        let root = try workspace.root()
        let local = try workspace.resolve(try #require(root.child("local")))
        #expect(local.node["type"]?.string == "string")
        #expect(local.pointer == "/defs/a~1b")
        #expect(try workspace.resolve(try #require(root.child("tilde"))).node["type"]?.string == "integer")
        let remote = try workspace.resolve(try #require(root.child("remote")))
        #expect(remote.node["type"]?.string == "boolean")
        #expect(remote.file == dir + "/lib/types.yaml")
        #expect(workspace.displayReference(remote) == "lib/types.yaml#/schemas/Real")
        #expect(try workspace.resolve(try #require(root.child("percent"))).node["type"]?.string == "number")
    }

    /// Issue 50: a pointer that passes through a reference continues in its target, as the official
    /// parser reads it (`#/channels/echo/messages/echo` where `echo` is defined in another file).
    @Test func aPointerPassesThroughReferencesOnItsPath() throws {
        let dir = try folder([
            "root.yaml": """
                channels:
                  echo: {$ref: './commons/channels.yaml#/echo'}
                message: {$ref: '#/channels/echo/messages/echo'}
                loop: {$ref: '#/loop/next'}
                """,
            "commons/channels.yaml": """
                echo: {$ref: '#/real'}
                real:
                  messages:
                    echo: {payload: {type: string}}
                """,
        ])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml")
        let root = try workspace.root()
        let message = try workspace.resolve(try #require(root.child("message")))
        #expect(message.node["payload"]?["type"]?.string == "string")
        #expect(message.file == dir + "/commons/channels.yaml")
        #expect(message.pointer == "/real/messages/echo")

        // `loop` names its own child: a cycle, reported at the reference, not a hang.
        #expect {
            try workspace.resolve(try #require(root.child("loop")))
        } throws: { error in
            let diagnostic = (error as? DiagnosticsError)?.diagnostics.first
            return diagnostic?.message.contains("$ref cycle") == true && diagnostic?.location?.line == 4 && diagnostic?.isBrokenReference == true
        }
    }

    @Test func eachFileIsLoadedOnce() throws {
        let dir = try folder([
            "root.yaml": "a: {$ref: './lib.yaml#/x'}\nb: {$ref: './lib.yaml#/y'}\nc: {$ref: 'lib.yaml#/x'}\n",
            "lib.yaml": "x: {type: string}\ny: {type: string}\n",
        ])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml")
        let root = try workspace.root()
        for key in ["a", "b", "c"] { _ = try workspace.resolve(try #require(root.child(key))) }
        #expect(workspace.loadedFiles == [dir + "/root.yaml", dir + "/lib.yaml"])
    }

    @Test func filesReadAheadAreInputsOnlyOnceUsedAndFailuresReportAtTheirRef() throws {
        let dir = try folder([
            "root.yaml": """
                a: {$ref: './lib.yaml#/x'}
                b: {$ref: './broken.yaml#/x'}
                x-notes: {$ref: './unused.yaml#/x'}
                """,
            "lib.yaml": "x: {type: string}\n",
            "broken.yaml": "x: [unclosed\n",
            "unused.yaml": "x: {type: string}\n",
        ])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml", readAheadMinimumSize: 0)
        let root = try workspace.root()
        #expect(try workspace.resolve(try #require(root.child("a"))).node["type"]?.string == "string")
        // Read ahead, failed there, and read again here: the same error as without reading ahead.
        #expect {
            _ = try workspace.resolve(try #require(root.child("b")))
        } throws: { error in
            (error as? DiagnosticsError)?.diagnostics.first?.location?.file == dir + "/broken.yaml"
        }
        // unused.yaml may have been parsed ahead, but nothing asked for it: it is no input.
        #expect(workspace.loadedFiles == [dir + "/root.yaml", dir + "/lib.yaml"])
    }

    @Test func pathsNormaliseOnSlashBytes() {
        #expect(FilePath.normalize("a/./b/../c") == "a/c")
        #expect(FilePath.normalize("/../x") == "/x")
        #expect(FilePath.normalize("../a/../../b") == "../../b")
        #expect(FilePath.normalize("") == ".")
        #expect(FilePath.normalize("//a//b/") == "/a/b")
        // A combining mark after `/` starts a new component (one `Character`, two path parts).
        #expect(FilePath.normalize("/é/\u{301}x/..") == "/é")
        #expect(FilePath.normalize("a/\u{301}") == "a/\u{301}")
    }

    /// Reading ahead never reads what a `$ref` may not: a file outside the allowed folder, through a
    /// symlink leading out, or a folder, fails with the same error as without reading ahead.
    @Test func filesReadAheadKeepTheFolderRulesAndTheirErrors() throws {
        let dir = try folder([
            "package/root.yaml": """
                out: {$ref: '../secret.yaml#/x'}
                link: {$ref: './escape.yaml#/x'}
                folder: {$ref: './sub#/x'}
                """,
            "package/sub/inner.yaml": "x: {}\n",
            "secret.yaml": "x: {type: string}\n",
        ])
        try FileManager.default.createSymbolicLink(atPath: dir + "/package/escape.yaml", withDestinationPath: dir + "/secret.yaml")
        func errors(readAheadMinimumSize: Int) throws -> [String] {
            let workspace = SpecWorkspace(rootFile: dir + "/package/root.yaml", allowedFolder: dir + "/package", readAheadMinimumSize: readAheadMinimumSize)
            let root = try workspace.root()
            return try ["out", "link", "folder"].map { key in
                let cursor = try #require(root.child(key))
                do throws(DiagnosticsError) {
                    _ = try workspace.resolve(cursor)
                    return "resolved"
                } catch {
                    return error.diagnostics.map(\.description).joined(separator: "\n")
                }
            }
        }
        let ahead = try errors(readAheadMinimumSize: 0)
        #expect(ahead == (try errors(readAheadMinimumSize: .max)))
        #expect(ahead.allSatisfy { $0 != "resolved" }, "\(ahead)")
        #expect(ahead[0].contains("is outside"), "\(ahead[0])")
        #expect(ahead[1].contains("is outside"), "\(ahead[1])")
        #expect(ahead[2].contains("not a regular file"), "\(ahead[2])")
    }

    @Test func referenceScanFindsTheFilesRefsName() {
        let text = """
            a: {$ref: './a.yaml#/x'}
            b:
              $ref: "b.yaml"
            c: {"$ref" : "sub/c.json#/d", "$ref":'e.yaml'}
            local: {$ref: '#/x'}
            remote: {$ref: 'https://example.com/r.yaml#/x'}
            again: {$ref: ./a.yaml#/y}
            bare: {$ref: f.yaml}
            description: costs $5; see $refund
            """
        #expect(ReferenceScan.files(in: Array(text.utf8)) == ["./a.yaml", "b.yaml", "sub/c.json", "e.yaml", "f.yaml"])
        #expect(ReferenceScan.files(in: Array("$ref".utf8)) == [])
        #expect(ReferenceScan.files(in: Array("$ref:".utf8)) == [])
    }

    @Test func cyclesAreReportedWithTheirPath() throws {
        let dir = try folder([
            "root.yaml": "start: {$ref: './other.yaml#/a'}\n",
            "other.yaml": "a: {$ref: '#/b'}\nb: {$ref: '#/a'}\n",
        ])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml")
        let start = try #require(try workspace.root().child("start"))
        #expect {
            _ = try workspace.resolve(start)
        } throws: { error in
            let message = (error as? DiagnosticsError)?.diagnostics.first?.description ?? ""
            return message == "\(dir)/other.yaml:1:11: error: $ref cycle: #/start → other.yaml#/a → other.yaml#/b → other.yaml#/a"
        }
    }

    @Test func danglingPointersNameTheMissingToken() throws {
        let dir = try folder(["root.yaml": "a: {$ref: '#/defs/missing'}\ndefs: {}\n"])
        let workspace = SpecWorkspace(rootFile: dir + "/root.yaml")
        let a = try #require(try workspace.root().child("a"))
        #expect {
            _ = try workspace.resolve(a)
        } throws: { error in
            (error as? DiagnosticsError)?.diagnostics.first?.message
                == "unresolved $ref '#/defs/missing': '#/defs' in root.yaml has no 'missing'"
        }
    }

    @Test func pointerTokensUnescapeInTheRightOrder() {
        #expect(JSONPointer.tokens("/a~1b/c~0d/~01") == ["a/b", "c~d", "~1"])
        #expect(JSONPointer.tokens("") == [])
        #expect(JSONPointer.tokens("no-slash") == nil)
        #expect(JSONPointer.escape("a/b~c") == "a~1b~0c")
    }

    @Test func pointerTokensSplitOnEverySlashCodePoint() {
        #expect(JSONPointer.tokens("/") == [""])
        #expect(JSONPointer.tokens("//a/") == ["", "a", ""])
        #expect(JSONPointer.tokens("/größe/日本") == ["größe", "日本"])
        // RFC 6901 splits on the code point: a combining mark after `/` does not hide the slash
        // (a split by `Character` would see one grapheme, `/́`, and not split).
        #expect(JSONPointer.tokens("/a/\u{301}b") == ["a", "\u{301}b"])
        #expect(JSONPointer.lastToken("/a/\u{301}b~1c") == "\u{301}b/c")
    }
}
