import Observability
import Synchronization

/// Maps method and path to a handler. Patterns are `/`-separated literal segments and `:name`
/// parameters (`/v1/posts/:id/like`); a literal segment wins over a parameter at the same place.
/// Routes are added at start-up; the first request freezes the table.
public final class Router: Sendable {
    struct Route: Sendable {
        var method: HTTPMethod
        var pattern: String
        /// Parameter names by segment position.
        var parameters: [(index: Int, name: String)]
        var handler: HTTPHandler
    }

    struct Node: Sendable {
        /// Literal segments and their nodes. A list rather than a dictionary: a node has a
        /// handful, and comparing a path's `Substring` in place needs no `String` made for a
        /// lookup (an id segment is too long to be stored inline, so that would allocate).
        var literals: [(segment: String, node: Int)] = []
        var parameter: Int?
        var routes = RoutesByMethod()
        /// Methods in the order they were added, for a stable `Allow`.
        var methods: [HTTPMethod] = []
    }

    struct Table: Sendable {
        var nodes: [Node] = [Node()]
        /// Set by the first lookup; keeps the published snapshot alive.
        var frozen: Frozen?
    }

    /// The table as served: immutable, so lookups read it without a lock.
    final class Frozen: Sendable {
        let nodes: [Node]

        init(nodes: [Node]) {
            self.nodes = nodes
        }
    }

    enum Match {
        case found(Route, parameters: [String: String])
        case methodNotAllowed(allow: [HTTPMethod], pattern: String)
        case notFound
    }

    private let table = Mutex(Table())
    /// The frozen table once published; it is also held strongly in `table`.
    private let published = Atomic<Unmanaged<Frozen>?>(nil)
    private let logger: Logger

    public init(logger: Logger = Logger(label: "router")) {
        self.logger = logger
    }

    /// Registers `handler` for `method` on `pattern`. Adding after serving has begun, or adding
    /// the same method and shape twice, is a programming error.
    public func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        var parameters: [(index: Int, name: String)] = []
        table.withLock { table in
            precondition(table.frozen == nil, "routes must be added before the router serves: \(method) \(pattern)")
            var current = 0
            for (index, segment) in segments.enumerated() {
                if segment.hasPrefix(":") {
                    let name = String(segment.dropFirst())
                    precondition(!name.isEmpty, "unnamed parameter in \(pattern)")
                    parameters.append((index: index, name: name))
                    if let next = table.nodes[current].parameter {
                        current = next
                    } else {
                        table.nodes.append(Node())
                        table.nodes[current].parameter = table.nodes.count - 1
                        current = table.nodes.count - 1
                    }
                } else {
                    if let next = table.nodes[current].literal(segment) {
                        current = next
                    } else {
                        table.nodes.append(Node())
                        table.nodes[current].literals.append((segment: String(segment), node: table.nodes.count - 1))
                        current = table.nodes.count - 1
                    }
                }
            }
            precondition(table.nodes[current].routes[method] == nil, "duplicate route \(method) \(pattern)")
            table.nodes[current].routes[method] = Route(
                method: method, pattern: pattern, parameters: parameters, handler: handler)
            table.nodes[current].methods.append(method)
        }
    }

    /// Every registered route, in the order added.
    public var routes: [(method: HTTPMethod, pattern: String)] {
        let nodes = table.withLock { $0.nodes }
        var all: [(method: HTTPMethod, pattern: String)] = []
        for node in nodes {
            for method in node.methods {
                if let route = node.routes[method] { all.append((method: method, pattern: route.pattern)) }
            }
        }
        return all
    }

    /// Routes and runs the request. Never throws: an `HTTPError` becomes its problem response,
    /// any other error a 500 that says nothing of the cause (which is logged).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        switch match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            request.route = route.pattern
            request.pathParameters = parameters
            var response: HTTPResponse
            do {
                response = try await route.handler(request)
            } catch {
                response = Problem.response(forThrown: error, by: request, logger: logger)
            }
            response.route = route.pattern
            return response
        case .methodNotAllowed(let allow, let pattern):
            var response = Problem.response(for: HTTPError.methodNotAllowed(allow: allow), requestID: request.requestID)
            response.route = pattern
            return response
        case .notFound:
            var response = Problem.response(
                for: HTTPError.notFound(detail: "no route matches this path"), requestID: request.requestID)
            response.route = HTTPRequest.unmatchedRoute
            return response
        }
    }

    /// The frozen table, freezing it on first use.
    private func frozen() -> Frozen {
        if let published = published.load(ordering: .acquiring) {
            return published.takeUnretainedValue()
        }
        return table.withLock { table in
            if let frozen = table.frozen { return frozen }
            let frozen = Frozen(nodes: table.nodes)
            table.frozen = frozen
            published.store(Unmanaged.passUnretained(frozen), ordering: .releasing)
            return frozen
        }
    }

    func match(method: HTTPMethod, path: String) -> Match {
        let nodes = frozen().nodes
        let segments = Self.segments(of: path)
        var fallback: Int?
        guard let found = Self.search(nodes, segments, 0, 0, method, &fallback) else {
            guard let fallback else { return .notFound }
            let node = nodes[fallback]
            var allow = node.methods
            if node.routes[.GET] != nil && node.routes[.HEAD] == nil { allow.insert(.HEAD, at: (allow.firstIndex(of: .GET) ?? 0) + 1) }
            let pattern = node.methods.first.flatMap { node.routes[$0]?.pattern } ?? HTTPRequest.unmatchedRoute
            return .methodNotAllowed(allow: allow, pattern: pattern)
        }
        var parameters: [String: String] = [:]
        for (index, name) in found.parameters where index < segments.count {
            parameters[name] = String(segments[index])
        }
        return .found(found, parameters: parameters)
    }

    /// The path's non-empty segments. Split on the bytes: `String.split` walks grapheme
    /// clusters, which costs more than the rest of the lookup, and in UTF-8 a `/` byte is
    /// never part of another character.
    static func segments(of path: String) -> [Substring] {
        var segments: [Substring] = []
        segments.reserveCapacity(8)
        let utf8 = path.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if index != start { segments.append(Substring(utf8[start..<index])) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { segments.append(Substring(utf8[start...])) }
        return segments
    }

    /// Depth-first, literals before parameters. Returns the route for `method` (HEAD falls back
    /// to GET); remembers in `fallback` the first node that matched the path at all, for 405.
    private static func search(
        _ nodes: [Node], _ segments: [Substring], _ depth: Int, _ index: Int,
        _ method: HTTPMethod, _ fallback: inout Int?
    ) -> Route? {
        let node = nodes[index]
        if depth == segments.count {
            if let route = node.routes[method] { return route }
            if method == .HEAD, let route = node.routes[.GET] { return route }
            if fallback == nil && !node.routes.isEmpty { fallback = index }
            return nil
        }
        if let next = node.literal(segments[depth]),
           let route = search(nodes, segments, depth + 1, next, method, &fallback) {
            return route
        }
        if let next = node.parameter {
            return search(nodes, segments, depth + 1, next, method, &fallback)
        }
        return nil
    }
}

/// A node's routes by method: a slot per method, found without hashing.
struct RoutesByMethod: Sendable {
    private var slots = [Router.Route?](repeating: nil, count: HTTPMethod.allCases.count)

    subscript(method: HTTPMethod) -> Router.Route? {
        get { slots[method.slot] }
        set { slots[method.slot] = newValue }
    }

    var isEmpty: Bool { slots.allSatisfy { $0 == nil } }
}

extension HTTPMethod {
    /// The method's place in `allCases`.
    fileprivate var slot: Int {
        switch self {
        case .GET: 0
        case .HEAD: 1
        case .POST: 2
        case .PUT: 3
        case .PATCH: 4
        case .DELETE: 5
        case .OPTIONS: 6
        }
    }
}

extension Router.Node {
    /// The node under the literal `segment`, if there is one.
    func literal(_ segment: Substring) -> Int? {
        // Byte for byte, as a path is matched, on contiguous bytes rather than through
        // `String`'s indices; lengths first, since most literals differ in length.
        var segment = segment
        return segment.withUTF8 { bytes in
            literals.first { literal in
                var text = literal.segment
                return text.withUTF8 { $0.count == bytes.count && $0.elementsEqual(bytes) }
            }?.node
        }
    }
}
