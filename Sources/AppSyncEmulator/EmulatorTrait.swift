// Compiled whether or not the Emulator trait is on: what a build without it tells people.

/// How a build without the emulator says so, and how to turn it on.
package enum EmulatorTrait {
    /// What the executables say when asked for the emulator in a build without it.
    package static let missingMessage = """
        this build has no emulator: swift-channelgen's Emulator trait is off. In a package that \
        depends on swift-channelgen, list the trait where the dependency is declared: \
        .package(url: "…/swift-channelgen", from: "…", traits: ["Emulator"]) (a plain \
        traits: [] leaves it out); in a checkout of swift-channelgen it is on unless the build \
        passes --disable-default-traits
        """
}
