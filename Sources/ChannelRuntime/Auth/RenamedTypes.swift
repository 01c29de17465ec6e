// The names these types had while only the AppSync Events transport used them; apps that still
// spell them build, with a warning that says the new name.

@available(*, deprecated, renamed: "ChannelEndpoint")
public typealias AppSyncEndpoint = ChannelEndpoint

@available(*, deprecated, renamed: "ChannelAuthorization")
public typealias AppSyncAuthorization = ChannelAuthorization
