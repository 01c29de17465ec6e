// `import SSERuntime` brings the transport-neutral runtime (the hub, states, policies, metrics,
// the endpoint and authorization), as `import AppSyncRuntime` does.
@_exported import ChannelRuntime
