// Everything else in this module is generated at build time by ChannelGenBuildPlugin from
// `channelgen.yaml` (the job stream's messages, `EnrichmentSubscription`, `EnrichmentNotifier`);
// the reviewed copy lives in `Generated/EnrichmentJobs/`. The runtime is re-exported, so
// `import EnrichmentJobs` is all a client needs beside its transport.
@_exported import ChannelRuntime
