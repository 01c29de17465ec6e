// Everything else in this module is generated at build time by ChannelGenBuildPlugin from
// `channelgen.yaml` (models, channels, subscriptions, `BackendNotifier`); the reviewed copy
// lives in `Generated/VortexEvents/`. This file only re-exports the runtime the generated
// code targets, so `import VortexEvents` is all an app needs.
@_exported import ChannelRuntime
