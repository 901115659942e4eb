#if canImport(Glibc)
import Glibc
#endif
@testable import HTTP
import Testing

/// Behind a load balancer every connection comes from the balancer: the client's address is
/// taken from the PROXY protocol or `X-Forwarded-For`, and only from a trusted proxy.
@Suite struct ClientAddressTests {
    /// A server whose `/whoami` answers the address a handler sees.
    private func server(_ configure: @escaping (inout HTTPServerConfiguration) -> Void) throws -> TestServer {
        try TestServer(configure: configure, extraRoutes: { router in
            router.add(.GET, "/whoami") { request in .text(200, request.remoteAddress) }
        })
    }

    private static let whoami = "GET /whoami HTTP/1.1\r\nHost: test\r\n\r\n"

    private static func proxies(_ list: String) throws -> TrustedProxies {
        try #require(TrustedProxies(list: list))
    }

    // MARK: The PROXY header

    @Test func version1HeadersGiveTheClientAndTheirLength() {
        let line = Array("PROXY TCP4 203.0.113.7 10.0.0.2 51234 8080\r\nGET / HTTP/1.1\r\n".utf8)
        #expect(ProxyProtocolHeader.parse(line) == .header(length: 44, client: ProxiedAddress(text: "203.0.113.7", port: 51234)))
        let six = Array("PROXY TCP6 2001:db8::1 2001:db8::2 4000 80\r\n".utf8)
        #expect(ProxyProtocolHeader.parse(six) == .header(length: six.count, client: ProxiedAddress(text: "2001:db8::1", port: 4000)))
        #expect(ProxyProtocolHeader.parse(Array("PROXY UNKNOWN\r\n".utf8)) == .header(length: 15, client: nil))
        #expect(ProxyProtocolHeader.parse(Array("PROXY TCP4 203.0.113.7 10.0".utf8)) == .incomplete)
        #expect(ProxyProtocolHeader.parse(Array("PRO".utf8)) == .incomplete)
        #expect(ProxyProtocolHeader.parse([]) == .incomplete)
    }

    @Test func malformedVersion1HeadersAreRefused() {
        for text in ["GET / HTTP/1.1\r\n", "PROXY TCP4 203.0.113.7 10.0.0.2 51234\r\n", "PROXY TCP4 not-an-ip 10.0.0.2 1 2\r\n",
                     "PROXY TCP6 203.0.113.7 10.0.0.2 1 2\r\n", "PROXY TCP4 203.0.113.7 10.0.0.2 1 99999\r\n",
                     "PROXY TCP4 203.0.113.7 10.0.0.2 1 2\n", "PROXY " + String(repeating: "x", count: 120)] {
            #expect(ProxyProtocolHeader.parse(Array(text.utf8)) == .invalid, "\(text)")
        }
    }

    @Test func version2HeadersGiveTheClientAndSkipTheirExtensions() {
        let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
        // PROXY over TCP/IPv4, 12 address bytes and a 3-byte TLV (skipped).
        let proxied = signature + [0x21, 0x11, 0x00, 15] + [198, 51, 100, 4, 10, 0, 0, 2, 0x1F, 0x90, 0x00, 0x50] + [0x01, 0x00, 0x00]
        #expect(ProxyProtocolHeader.parse(proxied + Array("GET".utf8))
            == .header(length: 31, client: ProxiedAddress(text: "198.51.100.4", port: 8080)))
        #expect(ProxyProtocolHeader.parse(proxied.prefix(20)) == .incomplete)
        let local = signature + [0x20, 0x00, 0x00, 0x00]
        #expect(ProxyProtocolHeader.parse(local) == .header(length: 16, client: nil))
        let wrongVersion = signature + [0x11, 0x11, 0x00, 12] + [UInt8](repeating: 0, count: 12)
        #expect(ProxyProtocolHeader.parse(wrongVersion) == .invalid)
        let tooShortForIPv4 = signature + [0x21, 0x11, 0x00, 4] + [1, 2, 3, 4]
        #expect(ProxyProtocolHeader.parse(tooShortForIPv4) == .invalid)
    }

    @Test func aProxyHeaderFromATrustedProxyNamesTheClient() throws {
        let server = try server {
            $0.proxyProtocol = true
            $0.trustedProxies = TrustedProxies(list: "127.0.0.0/8")!
        }
        defer { server.stop() }
        let connection = try server.connect()
        try connection.send("PROXY TCP4 203.0.113.7 127.0.0.1 51234 8080\r\n" + Self.whoami)
        #expect(try connection.readResponse().text == "203.0.113.7")
        // The header comes once; the connection's later requests keep its client.
        try connection.send(Self.whoami)
        #expect(try connection.readResponse().text == "203.0.113.7")

        // Sent in pieces, as a slow network would.
        let slow = try server.connect()
        try slow.send("PROXY TCP4 198.51")
        usleep(50_000)
        try slow.send(".100.9 127.0.0.1 1 2\r\n" + Self.whoami)
        #expect(try slow.readResponse().text == "198.51.100.9")
    }

    @Test func connectionsWithoutAValidHeaderOrFromAnUntrustedPeerAreClosed() throws {
        let server = try server {
            $0.proxyProtocol = true
            $0.trustedProxies = TrustedProxies(list: "127.0.0.1")!
            $0.proxyHeaderTimeout = .milliseconds(300)
        }
        defer { server.stop() }
        let plain = try server.connect()
        try plain.send(Self.whoami)
        #expect(plain.waitForClose(timeout: .seconds(2)))
        let silent = try server.connect()
        #expect(silent.waitForClose(timeout: .seconds(2)), "a header that never comes times out")

        let untrusting = try self.server {
            $0.proxyProtocol = true
            $0.trustedProxies = TrustedProxies(list: "10.0.0.0/8")!
        }
        defer { untrusting.stop() }
        let stranger = try untrusting.connect()
        try? stranger.send("PROXY TCP4 203.0.113.7 127.0.0.1 51234 8080\r\n" + Self.whoami)
        #expect(stranger.waitForClose(timeout: .seconds(2)))
        #expect(untrusting.handled.value == 0)
    }

    /// Per-address connection limits count the client the header names, not the proxy.
    @Test func theConnectionLimitCountsProxiedClients() throws {
        let server = try server {
            $0.proxyProtocol = true
            $0.trustedProxies = TrustedProxies(list: "127.0.0.1")!
            $0.perIPConnectionLimit = 1
        }
        defer { server.stop() }
        let first = try server.connect()
        try first.send("PROXY TCP4 203.0.113.1 127.0.0.1 1 2\r\n" + Self.whoami)
        #expect(try first.readResponse().text == "203.0.113.1")
        let other = try server.connect()
        try other.send("PROXY TCP4 203.0.113.2 127.0.0.1 1 2\r\n" + Self.whoami)
        #expect(try other.readResponse().text == "203.0.113.2")
        let again = try server.connect()
        try? again.send("PROXY TCP4 203.0.113.1 127.0.0.1 1 2\r\n" + Self.whoami)
        #expect(again.waitForClose(timeout: .seconds(2)))
    }

    // MARK: X-Forwarded-For

    @Test func forwardedForIsReadPastTrustedProxiesOnly() throws {
        let proxies = try Self.proxies("10.0.0.0/8, 192.0.2.1")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["198.51.100.7"]) == "198.51.100.7")
        // A client that writes its own header is read past only as far as the proxies vouch.
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["1.1.1.1, 198.51.100.7, 192.0.2.1"]) == "198.51.100.7")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["1.1.1.1", "198.51.100.7"]) == "198.51.100.7")
        #expect(proxies.client(peer: "203.0.113.9", forwardedFor: ["198.51.100.7"]) == "203.0.113.9")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: []) == "10.1.2.3")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["not-an-address"]) == "10.1.2.3")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: ["10.9.9.9"]) == "10.9.9.9")
        #expect(proxies.client(peer: "::ffff:10.1.2.3", forwardedFor: ["2001:db8::7"]) == "2001:db8::7")
    }

    @Test func rangesMatchByTheirPrefix() throws {
        let proxies = try Self.proxies("10.0.0.0/8,172.16.0.0/12,2001:db8::/32,127.0.0.1")
        for inside in ["10.255.0.1", "172.31.255.255", "2001:db8:ffff::1", "127.0.0.1", "::ffff:10.0.0.1"] {
            #expect(proxies.contains(inside), "\(inside)")
        }
        for outside in ["11.0.0.1", "172.32.0.1", "2001:db9::1", "127.0.0.2", "unknown"] {
            #expect(!proxies.contains(outside), "\(outside)")
        }
        for invalid in ["10.0.0.0/33", "nonsense", "10.0.0.0/8/8", "::/129", "10.0.0.0/x"] {
            #expect(TrustedProxies(list: invalid) == nil, "\(invalid)")
        }
        #expect(try Self.proxies("").isEmpty)
        #expect(try Self.proxies("0.0.0.0/0").contains("8.8.8.8"))
    }

    @Test func aTrustedPeersForwardedForReachesTheHandler() throws {
        let trusting = try server { $0.trustedProxies = TrustedProxies(list: "127.0.0.1")! }
        defer { trusting.stop() }
        let connection = try trusting.connect()
        try connection.send("GET /whoami HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n")
        #expect(try connection.readResponse().text == "198.51.100.7")

        let untrusting = try server { $0.trustedProxies = TrustedProxies(list: "10.0.0.0/8")! }
        defer { untrusting.stop() }
        let spoofing = try untrusting.connect()
        try spoofing.send("GET /whoami HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n")
        #expect(try spoofing.readResponse().text == "127.0.0.1")
    }
}
