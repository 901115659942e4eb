#if canImport(Glibc)
import Glibc
#endif

/// The load balancers whose word on a client's address is taken: addresses and CIDR ranges
/// (`10.0.0.0/8`, `127.0.0.1`, `fd00::/8`). Behind one, every connection comes from the
/// balancer; a request it forwards says who the client is in `X-Forwarded-For`, and a
/// connection it opens with the PROXY protocol says so in its first bytes. Anyone else could
/// write either, so both are read only from a peer listed here.
public struct TrustedProxies: Sendable, Equatable {
    private var ranges: [Range]

    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) { self.ranges = ranges }

    /// Parses a comma-separated list; nil when an entry is not an address or a range.
    public init?(list: String) {
        var ranges: [Range] = []
        for entry in list.split(separator: ",") {
            let text = entry.trimmingASCIISpaces()
            if text.isEmpty { continue }
            guard let range = Range(text) else { return nil }
            ranges.append(range)
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (as the server writes addresses) is one of the proxies.
    public func contains(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client a request came from: the peer itself, unless the peer is a trusted proxy
    /// and `X-Forwarded-For` names someone. Each proxy appends the address it received the
    /// request from, so the list is read from the right, past the trusted proxies, to the
    /// first address they did not vouch for: what a client wrote further left is its own word.
    public func client(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingASCIISpaces() }
        var client = peer
        for hop in hops.reversed() {
            guard let bytes = Self.bytes(of: hop) else { break }
            client = Self.text(of: bytes)
            if !ranges.contains(where: { $0.contains(bytes) }) { break }
        }
        return client
    }

    /// An address's 4 or 16 bytes; an IPv4-mapped IPv6 address gives its IPv4 bytes.
    static func bytes(of text: some StringProtocol) -> [UInt8]? {
        var ipv4 = in_addr(), ipv6 = in6_addr()
        let text = String(text)
        if inet_pton(AF_INET, text, &ipv4) == 1 { return withUnsafeBytes(of: ipv4) { Array($0) } }
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }

    /// An address written back the way `inet_ntop` writes it.
    static func text(of bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            guard let start = buffer.baseAddress,
                  bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, start, socklen_t(buffer.count)) }) != nil
            else { return "unknown" }
            return String(cString: start)
        }
    }

    /// An address and how many of its leading bits a match shares.
    private struct Range: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixBits: Int

        init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = TrustedProxies.bytes(of: parts[0]) else { return nil }
            // A mapped IPv6 range (`::ffff:10.0.0.0/104`) counts its bits in IPv6 terms.
            let mappedOffset = bytes.count == 4 && parts[0].contains(":") ? 96 : 0
            let width = bytes.count * 8
            var bits = width
            if parts.count == 2 {
                guard let given = Int(parts[1]), given >= mappedOffset, given - mappedOffset <= width else { return nil }
                bits = given - mappedOffset
            }
            self.bytes = bytes
            self.prefixBits = bits
        }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixBits
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if mine & mask != theirs & mask { return false }
                remaining -= 8
            }
            return true
        }
    }
}
