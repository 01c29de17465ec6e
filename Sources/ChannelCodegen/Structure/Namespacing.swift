import ChannelSpec

/// Puts a generation inside a namespace (`extension Namespace { … }`), so that tests can type-check
/// many specs in one compiler run, each as if it were its own module. Shadowing inside the namespace
/// behaves as it does at module level: a spec type named `Date` hides `Foundation.Date` in both.
extension SwiftFile {
    func namespaced(in namespace: Identifier, dropping module: Identifier?) -> SwiftFile {
        var wrapped: [Declaration] = []
        var fileScope: [Declaration] = []
        for declaration in declarations {
            if case .type(var type) = declaration.kind, type.keyword == .extension {
                if type.extendsGeneratedType { type.name = "\(namespace).\(type.name)" }
                var moved = declaration
                moved.kind = .type(type)
                fileScope.append(moved)
            } else {
                wrapped.append(declaration)
            }
        }
        let namespaceExtension = Declaration(.type(TypeDeclaration(keyword: .extension, name: .identifier(namespace), members: wrapped)))
        return SwiftFile(
            header: header, imports: imports.filter { $0.module != module },
            declarations: (wrapped.isEmpty ? [] : [namespaceExtension]) + fileScope)
    }
}

extension Generator {
    /// Generates every output file with its declarations inside `extension <namespace>`, mocks
    /// included (importing nothing but the runtime). Tests declare `enum <namespace> {}` once.
    package static func generateForTypeChecking(config: GeneratorConfig, namespace: String) -> GenerationResult {
        let named: Named
        switch name(config: config) {
        case .success(let value): named = value
        case .failure(let failed): return failed.result
        }
        let (api, names) = (named.api, named.names)
        var mocks = config
        mocks.mode = .mocks
        mocks.clientModule = mocks.clientModule ?? "ClientModule"
        let client = structure(api: api, names: names, config: config, header: "")
        let mock = structure(api: api, names: names, config: mocks, header: "")
        let files = (client.filter { $0.0 != .mocks } + mock.filter { $0.0 == .mocks }).map { file, structure in
            GeneratedFile(
                name: file.rawValue,
                contents: TextRenderer.render(structure.namespaced(in: Identifier(namespace), dropping: Identifier(mocks.clientModule!))))
        }
        return GenerationResult(files: files, diagnostics: named.diagnostics, inputs: named.inputs)
    }
}
