import MetaRouter
import Testing

/// The pure proxy choice: `NO_PROXY` matching as curl does it, which setting wins, and proxy URLs.
@Suite struct ProxyResolutionTests {
    @Test(arguments: [
        ("*", "anything.example", true),
        ("example.com", "example.com", true),
        ("example.com", "api.example.com", true),
        ("example.com", "API.Example.COM", true),
        (".example.com", "api.example.com", true),
        (".example.com", "example.com", true),
        ("example.com", "badexample.com", false),
        ("api.example.com", "example.com", false),
        ("localhost, 127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.10", false),
        ("10.0.0.1", "110.0.0.1", false),
        ("0.0.1", "127.0.0.1", false),
        ("example.com:8443", "example.com", true),
        ("[::1]", "::1", true),
        ("::1", "[::1]", true),
        ("", "example.com", false),
        (" , ,", "example.com", false),
        ("*.example.com", "api.example.com", false),
    ])
    func noProxyMatchesAsCurlDoes(list: String, host: String, bypassed: Bool) {
        #expect(NoProxyList(list).bypasses(host: host) == bypassed, "NO_PROXY=\(list) host \(host)")
    }

    @Test func configuredProxyWinsOverTheEnvironment() throws {
        let env = ["HTTPS_PROXY": "http://env:1", "https_proxy": "http://lower:2"]
        #expect(
            try HTTPProxy.resolve(for: "https://h.example", configured: "http://cfg:3", noProxy: nil, environment: env)
                == HTTPProxy(host: "cfg", port: 3))
        #expect(
            try HTTPProxy.resolve(for: "https://h.example", configured: nil, noProxy: nil, environment: env)
                == HTTPProxy(host: "lower", port: 2), "lowercase first, as curl")
        #expect(
            try HTTPProxy.resolve(for: "https://h.example", configured: "", noProxy: nil, environment: ["HTTPS_PROXY": "http://env:1"])
                == HTTPProxy(host: "env", port: 1), "an empty setting counts as unset")
        #expect(try HTTPProxy.resolve(for: "https://h.example", configured: "none", noProxy: nil, environment: env) == nil)
        #expect(try HTTPProxy.resolve(for: "https://h.example", configured: nil, noProxy: nil, environment: [:]) == nil)
    }

    @Test func plainHTTPEndpointsUseOnlyLowercaseHttpProxy() throws {
        #expect(try HTTPProxy.resolve(for: "http://h.example", configured: nil, noProxy: nil, environment: ["HTTPS_PROXY": "http://p:1"]) == nil)
        #expect(try HTTPProxy.resolve(for: "http://h.example", configured: nil, noProxy: nil, environment: ["HTTP_PROXY": "http://p:1"]) == nil)
        #expect(
            try HTTPProxy.resolve(for: "http://h.example", configured: nil, noProxy: nil, environment: ["http_proxy": "http://p:1"])
                == HTTPProxy(host: "p", port: 1))
    }

    @Test func noProxyAppliesToEveryProxyAndTheSettingWinsOverTheEnvironment() throws {
        let env = ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "h.example", "no_proxy": "other.example"]
        #expect(
            try HTTPProxy.resolve(for: "https://h.example", configured: nil, noProxy: nil, environment: env) != nil,
            "no_proxy (lowercase) is read first")
        #expect(try HTTPProxy.resolve(for: "https://api.h.example", configured: "http://cfg:3", noProxy: "h.example", environment: env) == nil)
        #expect(
            try HTTPProxy.resolve(
                for: "https://h.example", configured: nil, noProxy: "x.example",
                environment: ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "*"]) != nil)
        #expect(
            try HTTPProxy.resolve(
                for: "https://h.example", configured: nil, noProxy: nil,
                environment: ["HTTPS_PROXY": "http://env:1", "NO_PROXY": "*"]) == nil)
    }

    @Test func proxyURLs() throws {
        #expect(try HTTPProxy(url: "proxy:3128") == HTTPProxy(host: "proxy", port: 3128))
        #expect(try HTTPProxy(url: "http://proxy.corp:8080/") == HTTPProxy(host: "proxy.corp", port: 8080))
        let authed = try HTTPProxy(url: "http://user:s3cret@proxy:3128")
        #expect(authed.credentials == .init(username: "user", password: "s3cret"))
        #expect(authed.description == "http://user:****@proxy:3128")
        #expect(try HTTPProxy(url: "http://[::1]:3128").host == "::1")
        for bad in ["https://p:1", "socks5://p:1", "http://p", "http://p:1/path", "http://:1", "http://p:0"] {
            #expect(throws: DeliveryConfigurationError.self, "\(bad)") { try HTTPProxy(url: bad) }
        }
        do {
            _ = try HTTPProxy.resolve(for: "https://h", configured: nil, noProxy: nil, environment: ["HTTPS_PROXY": "nope"])
            Issue.record("expected an error")
        } catch {
            #expect(error.setting == "HTTPS_PROXY")
        }
    }
}
