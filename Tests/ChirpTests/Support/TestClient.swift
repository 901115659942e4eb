import Chirp
import Foundation
@testable import HTTP
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP client for the service under test. Tests read the same `Response` whichever
/// transport carries the request.
struct TestClient: Sendable {
    /// How a request reaches the service.
    enum Transport: Sendable {
        /// A real request over a real socket to the service's HTTP server: its framing and
        /// limits, its middleware (request id, access log, metrics) and the headers it sets.
        case socket
        /// The request the server would have parsed, handed straight to the service's router
        /// on its event loop: no socket, no server limits, no middleware. For route behaviour.
        case router
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSON { JSON(data: body) }
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        /// This response, when it has `status`; otherwise a failure that says what `action`
        /// got instead. For the requests a test makes to set itself up.
        @discardableResult
        func requiring(_ status: Int, _ action: @autoclosure () -> String) throws -> Response {
            guard self.status == status else {
                throw Failure(description: "\(action()): expected \(status), got \(self.status) \(text)")
            }
            return self
        }
    }

    private enum Connection: Sendable {
        case socket(URLSession)
        case router(ChirpService)
    }

    private let origin: String
    private let connection: Connection

    /// A client of a started `service`, over `transport`.
    init(_ transport: Transport, to service: ChirpService) {
        origin = "http://127.0.0.1:\(service.port)"
        switch transport {
        case .socket:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 64
            configuration.timeoutIntervalForRequest = 30
            configuration.urlCache = nil
            connection = .socket(URLSession(configuration: configuration))
        case .router:
            connection = .router(service)
        }
    }

    /// A request from `address`: any address through the router, only 127.0.0.1 over a socket.
    func request(
        _ method: String, _ path: String, body: Data? = nil, token: String? = nil,
        headers: [String: String] = [:], contentType: String? = "application/json", from address: String = "127.0.0.1"
    ) async throws -> Response {
        guard let url = URL(string: origin + path) else {
            throw Failure(description: "bad path \(path)")
        }
        var fields: [(String, String)] = []
        if body != nil, let contentType { fields.append(("Content-Type", contentType)) }
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        fields += headers.map { ($0.key, $0.value) }
        switch connection {
        case .socket(let session):
            guard address == "127.0.0.1" else { throw Failure(description: "a socket request comes from 127.0.0.1, not \(address)") }
            return try await Self.send(method, url, body: body, fields: fields, over: session)
        case .router(let service):
            return try await Self.route(method, url, body: body, fields: fields, from: address, to: service)
        }
    }

    private static func send(
        _ method: String, _ url: URL, body: Data?, fields: [(String, String)], over session: URLSession
    ) async throws -> Response {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw Failure(description: "not HTTP") }
        var received: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { received[name] = value }
        }
        return Response(status: http.statusCode, headers: received, body: data)
    }

    /// What the server does with a request it has read, short of its middleware: the head made
    /// into a request by the server's own `RequestHead` (the target split into path and query,
    /// the request id chosen) from `address` (127.0.0.1 unless a test says otherwise, as over
    /// a socket); the body attached; the router run on the server's first loop, which the pool
    /// waits on too.
    private static func route(
        _ method: String, _ url: URL, body: Data?, fields: [(String, String)], from address: String, to service: ChirpService
    ) async throws -> Response {
        let target = url.path(percentEncoded: true) + (url.query(percentEncoded: true).map { "?" + $0 } ?? "")
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.set(name, value) }  // the last of a name wins, as in URLRequest
        let head = RequestHead(
            method: method, target: target, headers: headers, headIsIntact: true, remoteAddress: address,
            configuration: service.configuration.http)
        var request = head.request
        if let refusal = request.rejection {
            throw Failure(description: "the server refuses \(method) \(target) before routing (\(refusal)): send it over a socket")
        }
        request.body = Array(body ?? Data())
        let response = await withTaskExecutorPreference(service.pool.eventLoop) { await service.router.respond(to: request) }
        var received: [String: String] = [:]
        for (name, value) in response.headers {
            // Repeated fields arrive joined, as URLSession reports them.
            received[name] = received[name].map { "\($0), \(value)" } ?? value
        }
        return Response(status: response.status, headers: received, body: Data(response.body))
    }

    func get(_ path: String, token: String? = nil, headers: [String: String] = [:], from address: String = "127.0.0.1") async throws -> Response {
        try await request("GET", path, token: token, headers: headers, from: address)
    }

    func delete(_ path: String, token: String? = nil) async throws -> Response {
        try await request("DELETE", path, token: token)
    }

    func put(_ path: String, token: String? = nil) async throws -> Response {
        try await request("PUT", path, token: token)
    }

    func put(_ path: String, json: [String: Any], token: String? = nil) async throws -> Response {
        try await request("PUT", path, body: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), token: token)
    }

    func post(_ path: String, json: [String: Any], token: String? = nil, headers: [String: String] = [:]) async throws -> Response {
        try await request("POST", path, body: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), token: token, headers: headers)
    }

    func patch(_ path: String, json: [String: Any], token: String? = nil) async throws -> Response {
        try await request("PATCH", path, body: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), token: token)
    }

    func post(_ path: String, raw: String, token: String? = nil, contentType: String? = "application/json") async throws -> Response {
        try await request("POST", path, body: Data(raw.utf8), token: token, contentType: contentType)
    }
}

/// Read-only access into a JSON document, for assertions: missing paths read as `.missing`.
struct JSON: Sendable, Equatable {
    private let value: Value

    indirect enum Value: Sendable, Equatable {
        case object([String: Value]), array([Value]), string(String), number(Double), bool(Bool), null, missing
    }

    init(data: Data) {
        value = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])).map(Self.convert) ?? .missing
    }

    private init(_ value: Value) { self.value = value }

    private static func convert(_ any: Any) -> Value {
        switch any {
        case let object as [String: Any]: .object(object.mapValues(convert))
        case let array as [Any]: .array(array.map(convert))
        case let string as String: .string(string)
        case let bool as Bool where type(of: any) == Bool.self || "\(type(of: any))".contains("Bool"): .bool(bool)
        case let number as NSNumber: .number(number.doubleValue)
        case is NSNull: .null
        default: .missing
        }
    }

    subscript(key: String) -> JSON {
        if case .object(let object) = value, let child = object[key] { return JSON(child) }
        return JSON(.missing)
    }

    subscript(index: Int) -> JSON {
        if case .array(let array) = value, array.indices.contains(index) { return JSON(array[index]) }
        return JSON(.missing)
    }

    var string: String? { if case .string(let s) = value { s } else { nil } }
    var int: Int? { if case .number(let n) = value { Int(exactly: n) } else { nil } }
    var bool: Bool? { if case .bool(let b) = value { b } else { nil } }
    var array: [JSON] { if case .array(let a) = value { a.map(JSON.init) } else { [] } }
    var isNull: Bool { value == .null }
    var exists: Bool { value != .missing }
    var keys: Set<String> { if case .object(let o) = value { Set(o.keys) } else { [] } }
}
