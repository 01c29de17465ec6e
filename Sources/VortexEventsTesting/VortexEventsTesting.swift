// `MockBackendNotifier` is generated at build time by ChannelGenBuildPlugin from `channelgen.yaml`
// (the reviewed copy is in `Generated/VortexEventsTesting/`). Test targets depend on this module;
// apps do not, so the mock never ships.
@_exported import ChannelRuntimeTesting
@_exported import VortexEvents
