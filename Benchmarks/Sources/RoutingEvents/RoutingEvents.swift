@_exported import ChannelRuntime
