import Foundation
import Testing

/// AsyncAPI 3 operations are the described application's own. A document written from the
/// server's side says `send` for what its clients receive, and gave an inverted client: a publish
/// method for the server's broadcasts and a stream of what the client itself should send.
/// `perspective: server` reads such a document the other way round; a document of sends alone
/// gets a warning that names the option.
@Suite("Whose side a document describes")
struct PerspectiveTests {
    /// A chat server's document: it sends `said` to every client, and receives `say` from them.
    static let serverSpec = """
        asyncapi: 3.0.0
        info: {title: Chat Server, version: 1.0.0}
        channels:
          room:
            address: rooms/{roomId}
            parameters: {roomId: {}}
            messages:
              said: {payload: {type: object, required: [type], properties: {type: {const: said}, text: {type: string}}}}
              say: {payload: {type: object, required: [type], properties: {type: {const: say}, text: {type: string}}}}
        operations:
          broadcast:
            action: send
            channel: {$ref: '#/channels/room'}
            messages: [{$ref: '#/channels/room/messages/said'}]
          listen:
            action: receive
            channel: {$ref: '#/channels/room'}
            messages: [{$ref: '#/channels/room/messages/say'}]
        """

    @Test func aServersDocumentGivesTheClientItsSendsAsStreamsAndItsReceivesAsPublishes() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let asWritten = try await TestSupport.generate(spec: Self.serverSpec, named: "spec.yaml", in: work)
        #expect(asWritten.result.status == 0, "\(asWritten.result.stderr)")
        let inverted = try TestSupport.contents(asWritten.output.appendingPathComponent("Notifier.swift"))
        #expect(inverted.contains("func broadcast(_ events:") && inverted.contains("func listen() async -> AsyncStream<"))

        let (result, output) = try await TestSupport.generate(spec: Self.serverSpec, named: "spec.yaml", in: work, extra: "perspective: server\n")
        #expect(result.status == 0, "\(result.stderr)")
        let notifier = try TestSupport.contents(output.appendingPathComponent("Notifier.swift"))
        #expect(notifier.contains("func broadcast() async -> AsyncStream<"), "\(notifier)")
        #expect(notifier.contains("func listen(_ events:"), "\(notifier)")
        let typecheck = try await TestSupport.typecheckClient(in: output)
        #expect(typecheck.status == 0, "\(typecheck.stderr)")
    }

    @Test func aDocumentOfSendsAloneSuggestsTheOptionAtItsFirstSend() async throws {
        let sendsOnly = Self.serverSpec.components(separatedBy: "  listen:")[0]
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let written = try await TestSupport.generate(spec: sendsOnly, named: "spec.yaml", in: work)
        #expect(written.result.status == 0)
        #expect(written.result.stderr.contains(
            "spec.yaml:12:13: warning: every operation of this document sends and none receives, so the client gets publish methods and no streams; "
                + "if the document describes the server (its 'send' is what clients receive), set 'perspective: server' in channelgen.yaml"),
            "\(written.result.stderr)")
        // Said once the option is set, or for a client's document that also receives.
        let server = try await TestSupport.generate(spec: sendsOnly, named: "spec.yaml", in: work, extra: "perspective: server\n")
        #expect(server.result.status == 0 && !server.result.stderr.contains("perspective"), "\(server.result.stderr)")
        let both = try await TestSupport.generate(spec: Self.serverSpec, named: "spec.yaml", in: work)
        #expect(!both.result.stderr.contains("perspective"), "\(both.result.stderr)")
    }

    @Test func anUnknownPerspectiveIsAnErrorAtItsLine() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (result, _) = try await TestSupport.generate(spec: Self.serverSpec, named: "spec.yaml", in: work, extra: "perspective: servers\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("channelgen.yaml:2:14: error: 'perspective' must be one of client, server (whose side the document describes)"))
    }

    /// The mocks stand in for the client's notifier, so a mocks config without `perspective:`
    /// takes the client's (the default layout, `../<clientModule>/channelgen.yaml`).
    @Test func theMocksTakeTheClientsPerspective() async throws {
        let work = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let (mocks, checked) = try await TestSupport.generateClientAndMocks(
            spec: Self.serverSpec, clientConfig: "perspective: server\n", module: "Chat", in: work)
        #expect(try TestSupport.contents(mocks).contains("func broadcast() async -> AsyncStream<"))
        #expect(checked.module.status == 0, "\(checked.module.stderr)")
        #expect(checked.mocks.status == 0, "\(checked.mocks.stderr)")
    }
}
