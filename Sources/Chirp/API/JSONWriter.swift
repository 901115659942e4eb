/// Writes JSON straight into bytes, in a fixed key order, without an encoder's reflection:
/// responses are built on every request, so this is on the hot path.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// One entry per open object or array: whether it already has a member.
    private var hasMember: [Bool] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        hasMember.append(false)
    }

    mutating func endObject() {
        hasMember.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        hasMember.append(false)
    }

    mutating func endArray() {
        hasMember.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a key; the next value call writes its value.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            // Copy runs that need no escaping in one go; most strings are one run.
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [92, 110])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [92, 114])
                case UInt8(ascii: "\t"): bytes.append(contentsOf: [92, 116])
                default: bytes.append(contentsOf: [92, 117, 48, 48, Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xf)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: Array("null".utf8))
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Splices an already-encoded JSON value.
    mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    private var pendingValueAfterKey = false

    /// Commas between members; a value right after its key needs none.
    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard let last = hasMember.indices.last else { return }
        if hasMember[last] { bytes.append(UInt8(ascii: ",")) }
        hasMember[last] = true
    }
}

/// A value that writes itself as JSON.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}
