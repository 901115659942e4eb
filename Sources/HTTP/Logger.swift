#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EventLoops

/// Structured logging: one JSON object per line, written to standard error by default.
/// Callers pass fields, never request bodies, tokens or `Authorization` values.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// Receives each finished line, without its trailing newline.
    public typealias Sink = @Sendable (String) -> Void

    public var label: String
    public var minimumLevel: Level
    /// Nil means standard error, written straight from the line's bytes.
    private let sink: Sink?

    public init(label: String = "chirp", minimumLevel: Level = .info, sink: Sink? = nil) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    /// Builds the line as bytes: a log line is written for every request, so it stays off
    /// `String`'s slower append paths.
    public func log(_ level: Level, _ message: String, _ fields: [(String, LogValue)]) {
        guard isEnabled(level) else { return }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: #"{"time":""#.utf8)
        Self.appendTimestamp(to: &line)
        line.append(contentsOf: #"","level":""#.utf8)
        line.append(contentsOf: level.description.utf8)
        line.append(contentsOf: #"","logger":"#.utf8)
        JSONText.appendString(label, to: &line)
        line.append(contentsOf: #","msg":"#.utf8)
        JSONText.appendString(message, to: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            JSONText.appendString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            value.append(to: &line)
        }
        line.append(UInt8(ascii: "}"))
        if let sink {
            sink(String(decoding: line, as: UTF8.self))
        } else {
            line.append(UInt8(ascii: "\n"))
            if let loop = EventLoop.current {
                // Batched on the loop; an error goes out at once (after what is queued), so
                // it is not lost if the process dies next.
                loop.writeBatched(line)
                if level >= .error { loop.flushBatchedOutput() }
            } else {
                Descriptor.writeAll(line, to: 2)
            }
        }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.debug, message, Array(fields))
    }

    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.info, message, Array(fields))
    }

    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.warning, message, Array(fields))
    }

    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.error, message, Array(fields))
    }

    /// UTC with milliseconds, for example `2026-11-30T10:53:13.042Z`.
    static func appendTimestamp(to bytes: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value % (divisor * 10)
            while divisor > 0 {
                bytes.append(UInt8(truncatingIfNeeded: 48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        pad(Int(parts.tm_year) + 1900, 4); bytes.append(UInt8(ascii: "-"))
        pad(Int(parts.tm_mon) + 1, 2); bytes.append(UInt8(ascii: "-"))
        pad(Int(parts.tm_mday), 2); bytes.append(UInt8(ascii: "T"))
        pad(Int(parts.tm_hour), 2); bytes.append(UInt8(ascii: ":"))
        pad(Int(parts.tm_min), 2); bytes.append(UInt8(ascii: ":"))
        pad(Int(parts.tm_sec), 2); bytes.append(UInt8(ascii: "."))
        pad(Int(now.tv_nsec) / 1_000_000, 3); bytes.append(UInt8(ascii: "Z"))
    }
}

/// A log field's value.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    func append(to line: inout [UInt8]) {
        switch self {
        case .string(let text): JSONText.appendString(text, to: &line)
        case .int(let number): line.append(contentsOf: String(number).utf8)
        case .double(let number): line.append(contentsOf: (number.isFinite ? String(number) : "null").utf8)
        case .bool(let flag): line.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }
}
