import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP client for the service under test: real requests over a real socket.
struct TestClient: Sendable {
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
    }

    let port: Int
    private let session: URLSession

    init(port: Int) {
        self.port = port
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 30
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    func request(
        _ method: String, _ path: String, body: Data? = nil, token: String? = nil,
        headers: [String: String] = [:], contentType: String? = "application/json"
    ) async throws -> Response {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
            throw Failure(description: "bad path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil, let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw Failure(description: "not HTTP") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Response(status: http.statusCode, headers: fields, body: data)
    }

    func get(_ path: String, token: String? = nil, headers: [String: String] = [:]) async throws -> Response {
        try await request("GET", path, token: token, headers: headers)
    }

    func delete(_ path: String, token: String? = nil) async throws -> Response {
        try await request("DELETE", path, token: token)
    }

    func put(_ path: String, token: String? = nil) async throws -> Response {
        try await request("PUT", path, token: token)
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
