import ChannelSpec

/// The names taken in one Swift scope.
struct Scope {
    struct Candidate {
        var name: String
        var isExplicit: Bool
        var location: SourceLocation
        /// How the spec spells it, for messages.
        var original: String
        var what: String?
        /// A name the generator makes up for itself (a wide object's parts) is renamed without a
        /// warning: there is nothing for the user to choose.
        var isInternal = false

        init(_ name: String, explicit: Bool, location: SourceLocation, original: String? = nil, what: String? = nil, isInternal: Bool = false) {
            self.name = name
            self.isExplicit = explicit
            self.location = location
            self.original = original ?? name
            self.what = what
            self.isInternal = isInternal
        }
    }

    private struct Owner {
        var location: SourceLocation?
        var description: String
        var isExplicit: Bool
    }

    let what: String
    /// How the user can choose the name, ending each rename warning.
    let hint: String
    private var taken: [String: Owner] = [:]
    /// Names declared in enclosing scopes that this scope's names must not shadow.
    private let visible: [Set<String>]
    private let visibleDescription: String

    init(what: String, hint: String = "set x-swift-name to choose", visible: [Set<String>] = [], visibleDescription: String = "") {
        self.what = what
        self.hint = hint
        self.visible = visible
        self.visibleDescription = visibleDescription
    }

    /// Who holds `name` here, if anyone.
    private func owner(of name: String) -> Owner? {
        if let owner = taken[name] { return owner }
        if visible.contains(where: { $0.contains(name) }) {
            return Owner(location: nil, description: visibleDescription, isExplicit: false)
        }
        return nil
    }

    /// Every name taken or reserved.
    var names: Set<String> { Set(taken.keys) }

    mutating func reserve(_ name: String, _ description: String) {
        taken[name] = Owner(location: nil, description: description, isExplicit: false)
    }

    /// Claims every candidate, explicit names first; returns the final names in candidate order.
    mutating func claim(_ candidates: [Candidate], _ diagnostics: inout Diagnostics) -> [String] {
        var result = [String](repeating: "", count: candidates.count)
        // Room for them all at once: growing the table as they come rehashed it a dozen times.
        taken.reserveCapacity(taken.count + candidates.count)
        for pass in [true, false] {
            for (index, candidate) in candidates.enumerated() where candidate.isExplicit == pass {
                result[index] = claim(candidate, &diagnostics)
            }
        }
        return result
    }

    private mutating func claim(_ candidate: Candidate, _ diagnostics: inout Diagnostics) -> String {
        let what = candidate.what ?? self.what
        guard let holder = owner(of: candidate.name) else {
            taken[candidate.name] = Owner(location: candidate.location, description: "", isExplicit: candidate.isExplicit)
            return candidate.name
        }
        let other = holder.location.map { "the \(what) at \($0)" } ?? holder.description
        if candidate.isExplicit && holder.isExplicit {
            diagnostics.error("x-swift-name '\(candidate.name)' is used twice in one scope; the other is \(other)", at: candidate.location)
            if let location = holder.location { diagnostics.append(.note("'\(candidate.name)' is also declared here", at: location)) }
            return candidate.name
        }
        var suffix = 2
        while owner(of: "\(candidate.name)\(suffix)") != nil { suffix += 1 }
        let unique = "\(candidate.name)\(suffix)"
        taken[unique] = Owner(location: candidate.location, description: "", isExplicit: candidate.isExplicit)
        if candidate.isInternal { return unique }
        diagnostics.warning(
            "\(what) '\(candidate.original)' is named '\(unique)' in Swift: '\(candidate.name)' is taken by \(other) (\(hint))",
            at: candidate.location)
        return unique
    }
}
