#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    private let sink: Sink

    public init(label: String = "chirp", minimumLevel: Level = .info, sink: @escaping Sink = Logger.standardError) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    public func log(_ level: Level, _ message: String, _ fields: [(String, LogValue)]) {
        guard isEnabled(level) else { return }
        var line = #"{"time":"#
        JSONText.appendString(Self.timestamp(), to: &line)
        line.append(#","level":""#)
        line.append(level.description)
        line.append(#"","logger":"#)
        JSONText.appendString(label, to: &line)
        line.append(#","msg":"#)
        JSONText.appendString(message, to: &line)
        for (key, value) in fields {
            line.append(",")
            JSONText.appendString(key, to: &line)
            line.append(":")
            value.append(to: &line)
        }
        line.append("}")
        sink(line)
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

    /// Writes each line with a single `write(2)`, so lines from different threads do not mix.
    public static let standardError: Sink = { line in
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(2, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// UTC with milliseconds, for example `2026-11-30T10:53:13.042Z`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":"
            + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "."
            + pad(Int(now.tv_nsec) / 1_000_000, 3) + "Z"
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

    func append(to line: inout String) {
        switch self {
        case .string(let text): JSONText.appendString(text, to: &line)
        case .int(let number): line.append(String(number))
        case .double(let number): line.append(number.isFinite ? String(number) : "null")
        case .bool(let flag): line.append(flag ? "true" : "false")
        }
    }
}
