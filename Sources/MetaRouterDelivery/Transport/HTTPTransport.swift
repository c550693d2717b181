/// The HTTP transport: ``LeanHTTPTransport``, which sends to every `http://` and `https://`
/// endpoint, directly or through an HTTP proxy. The name stays for code written when a proxy
/// needed a second transport.
public typealias HTTPTransport = LeanHTTPTransport
