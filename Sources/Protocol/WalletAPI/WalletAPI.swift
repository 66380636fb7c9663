// The issuer's HTTP API, generated at build time from openapi.yaml beside this file
// (types, `Client`, and the `APIProtocol` the server implements).

/// The API version prefix every versioned path starts with.
public let walletAPIVersionPrefix = "/v1"
