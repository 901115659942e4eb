#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD

/// The header a load balancer (HAProxy's `send-proxy` or `send-proxy-v2`) writes at the start
/// of each connection it opens, naming the client it accepted: version 1 is a text line,
/// version 2 a binary block (https://www.haproxy.org/download/2.8/doc/proxy-protocol.txt).
enum ProxyProtocolHeader: Equatable {
    /// More bytes are needed to decide.
    case incomplete
    /// Not a PROXY header, or a malformed one: the connection is closed.
    case invalid
    /// A header of `length` bytes; `client` is nil for a connection the proxy opened itself
    /// (a health check: v1 `UNKNOWN`, v2 `LOCAL`), or one from a family other than TCP.
    case header(length: Int, client: ProxiedAddress?)

    /// Bytes read ahead before giving up on a header: a v1 line is at most 107; a v2 block
    /// with a few TLVs (which are skipped) stays well within this.
    static let maximumLength = 512

    private static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    private static let version1Prefix = Array("PROXY ".utf8)

    /// Parses the start of `bytes`, which holds what has arrived so far.
    static func parse(_ bytes: some Collection<UInt8>) -> ProxyProtocolHeader {
        let bytes = Array(bytes.prefix(maximumLength))
        if startsWith(bytes, version2Signature) { return version2(bytes) }
        if startsWith(bytes, version1Prefix) { return version1(bytes) }
        // What has arrived is the start of either signature: wait for the rest.
        return version2Signature.starts(with: bytes) || version1Prefix.starts(with: bytes) ? .incomplete : .invalid
    }

    private static func startsWith(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && bytes.starts(with: prefix)
    }

    /// `PROXY TCP4 203.0.113.9 10.0.0.2 51234 8080\r\n`, or `PROXY UNKNOWN …\r\n`.
    private static func version1(_ bytes: [UInt8]) -> ProxyProtocolHeader {
        let lineLimit = 107
        guard let end = bytes.firstIndex(of: 0x0A) else { return bytes.count < lineLimit ? .incomplete : .invalid }
        guard end > 0, end < lineLimit, bytes[end - 1] == 0x0D else { return .invalid }
        guard let line = String(validating: bytes[..<(end - 1)], as: UTF8.self) else { return .invalid }
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[0] == "PROXY" else { return .invalid }
        if fields[1] == "UNKNOWN" { return .header(length: end + 1, client: nil) }
        guard fields.count == 6, fields[1] == "TCP4" || fields[1] == "TCP6",
              let port = UInt16(fields[4]), UInt16(fields[5]) != nil,
              let client = ProxiedAddress(text: String(fields[2]), port: port),
              client.isIPv6 == (fields[1] == "TCP6")
        else { return .invalid }
        return .header(length: end + 1, client: client)
    }

    /// The signature, version and command, family and protocol, the address block's length,
    /// then the addresses (and any TLVs, skipped).
    private static func version2(_ bytes: [UInt8]) -> ProxyProtocolHeader {
        guard bytes.count >= 16 else { return .incomplete }
        let versionAndCommand = bytes[12], familyAndProtocol = bytes[13]
        let blockLength = Int(bytes[14]) << 8 | Int(bytes[15])
        let length = 16 + blockLength
        guard versionAndCommand >> 4 == 2, length <= maximumLength else { return .invalid }
        guard bytes.count >= length else { return .incomplete }
        switch versionAndCommand & 0x0F {
        case 0x0: return .header(length: length, client: nil)  // LOCAL
        case 0x1: break  // PROXY
        default: return .invalid
        }
        let block = bytes[16..<length]
        switch familyAndProtocol {
        case 0x11 where block.count >= 12:  // TCP over IPv4
            let port = UInt16(block[block.startIndex + 8]) << 8 | UInt16(block[block.startIndex + 9])
            return .header(length: length, client: ProxiedAddress(ipv4: Array(block.prefix(4)), port: port))
        case 0x21 where block.count >= 36:  // TCP over IPv6
            let port = UInt16(block[block.startIndex + 32]) << 8 | UInt16(block[block.startIndex + 33])
            return .header(length: length, client: ProxiedAddress(ipv6: Array(block.prefix(16)), port: port))
        case 0x11, 0x21:
            return .invalid
        default:
            return .header(length: length, client: nil)  // UDP, UNIX sockets, unspecified
        }
    }
}

/// A client's address as a PROXY header gives it, ready to hand to libmicrohttpd.
struct ProxiedAddress: Equatable {
    /// `sockaddr_in` or `sockaddr_in6` bytes.
    var storage: sockaddr_storage
    var length: socklen_t
    var text: String
    var isIPv6: Bool

    init?(text: String, port: UInt16) {
        var ipv4 = in_addr(), ipv6 = in6_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            self.init(ipv4: withUnsafeBytes(of: ipv4) { Array($0) }, port: port)
        } else if inet_pton(AF_INET6, text, &ipv6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: ipv6) { Array($0) }, port: port)
        } else {
            return nil
        }
    }

    init(ipv4 bytes: [UInt8], port: UInt16) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: bytes.prefix(4)) }
        self.init(address, isIPv6: false)
    }

    init(ipv6 bytes: [UInt8], port: UInt16) {
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes.prefix(16)) }
        self.init(address, isIPv6: true)
    }

    /// `address` (a `sockaddr_in` or `sockaddr_in6`) in a `sockaddr_storage`.
    private init<Address>(_ address: Address, isIPv6: Bool) {
        storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
        }
        length = socklen_t(MemoryLayout<Address>.size)
        self.isIPv6 = isIPv6
        text = Self.text(of: &storage)
    }

    /// The address as the rest of the server writes one (`chirp_sockaddr_ip`).
    private static func text(of storage: inout sockaddr_storage) -> String {
        withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                AddressText.read { chirp_sockaddr_ip(address, $0, $1) }
            }
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.text == rhs.text && lhs.length == rhs.length && lhs.isIPv6 == rhs.isIPv6
    }
}
