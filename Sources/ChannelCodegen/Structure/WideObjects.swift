import ChannelSpec

/// Objects with many properties keep them in parts: private structs of at most `partSize`
/// properties each, behind public computed properties of the same names.
///
/// The compiler's work on one struct (its initializers' definite initialization, the ownership
/// passes over synthesized `Codable`) grows with the square of its stored properties: an app's
/// debug build of one object of 1 000 properties took minutes. In parts it grows with the number
/// of properties (Benchmarks/README.md, "Wide objects"). The public API (properties, memberwise
/// initializer, `Codable` as one JSON object, `Hashable`) is the same as a plain struct's.
enum WideObjects {
    static let partSize = 64

    /// Whether `type` is kept in parts: a plain object (coding synthesized: no kept extra
    /// properties, no boxed properties) of more than `partSize` properties.
    static func isWide(_ type: NamedType, boxed: Set<Int>?) -> Bool {
        guard case .object(let properties) = type.kind, type.extraProperties == nil, boxed?.isEmpty ?? true else { return false }
        return properties.count > partSize
    }

    /// The property indices of each part, in order.
    static func partRanges(propertyCount: Int) -> [Range<Int>] {
        stride(from: 0, to: propertyCount, by: partSize).map { $0..<min($0 + partSize, propertyCount) }
    }
}

/// One part of a wide object: its stored property, its private type, and the properties it holds.
struct WidePart: Sendable {
    var storage: Identifier
    var type: Identifier
    var properties: Range<Int>
}
