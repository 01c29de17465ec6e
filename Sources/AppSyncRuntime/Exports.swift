// The transport-neutral types (connection and subscription states, reconnect policy, service
// errors) live in ChannelRuntime; `import AppSyncRuntime` brings them along.
@_exported import ChannelRuntime
