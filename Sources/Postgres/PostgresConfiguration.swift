import CLibPQ

/// Where and how to connect, as libpq connection keywords.
public struct PostgresConfiguration: Sendable {
    /// libpq connection keywords in order; later entries override earlier ones.
    public private(set) var parameters: [(String, String)]
    /// Whether a login that bypasses row-level security (a superuser, a `BYPASSRLS` role) may
    /// connect: for migrations, fixtures and administration, never for serving requests.
    public var allowsRowSecurityBypass = false

    /// A `postgres://` URL or a `key=value` connection string; throws if libpq cannot parse it.
    public init(url: String, applicationName: String = "chirp") throws {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            defer { PQfreemem(error) }
            let reason = error.map { String(cString: $0) } ?? "unparseable"
            throw PostgresError(.client, message: "invalid database URL: \(reason.trimmed)")
        }
        defer { PQconninfoFree(options) }
        // Keep the URL as individual keywords, so any of them can be overridden later.
        parameters = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                parameters.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        if setting("application_name") == nil { set("application_name", applicationName) }
        applySessionDefaults()
    }

    /// Individual libpq keywords (`host`, `port`, `dbname`, `user`, `password`, …).
    public init(parameters: [(String, String)]) {
        self.parameters = parameters
        applySessionDefaults()
    }

    public func setting(_ key: String) -> String? {
        parameters.last { $0.0 == key }?.1
    }

    public mutating func set(_ key: String, _ value: String) {
        parameters.removeAll { $0.0 == key }
        parameters.append((key, value))
    }

    public mutating func remove(_ key: String) {
        parameters.removeAll { $0.0 == key }
    }

    /// Seconds libpq may spend establishing a connection.
    public var connectTimeoutSeconds: Int {
        get { setting("connect_timeout").flatMap { Int($0) } ?? 5 }
        set { set("connect_timeout", String(newValue)) }
    }

    /// Text comes back in UTF-8, whatever the server's default: the decoders read it in place.
    /// No other session setting is sent at startup, and none is needed: results arrive in
    /// binary (so `TimeZone` and `DateStyle` never shape a value read) and timestamps are sent
    /// with their offset. A transaction pooler refuses startup `options` (PgBouncer answers
    /// "unsupported startup parameter"), and what one transaction set would not reach the next.
    private mutating func applySessionDefaults() {
        if setting("connect_timeout") == nil { set("connect_timeout", "5") }
        set("client_encoding", "UTF8")
    }
}

extension String {
    var trimmed: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
