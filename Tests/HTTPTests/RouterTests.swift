import HTTP
import Observability
import Testing

@Suite struct RouterTests {
    struct Boom: Error {}

    func makeRouter() -> Router {
        let router = Router(logger: Logger(label: "test", minimumLevel: .error, sink: { _ in }))
        router.add(.GET, "/v1/posts/:id") { request in
            .text(200, "post \(request.pathParameters["id"] ?? "-") via \(request.route)")
        }
        router.add(.DELETE, "/v1/posts/:id") { _ in .empty(204) }
        router.add(.PUT, "/v1/posts/:id/like") { request in .text(200, "like \(request.pathParameters["id"] ?? "-")") }
        router.add(.GET, "/v1/users/me") { _ in .text(200, "me") }
        router.add(.GET, "/v1/users/:username") { request in .text(200, "user \(request.pathParameters["username"] ?? "-")") }
        router.add(.GET, "/teapot") { _ in throw HTTPError(418, code: "teapot", detail: "short and stout") }
        router.add(.GET, "/boom") { _ in throw Boom() }
        return router
    }

    func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func pathParametersAndRoute() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: .GET, path: "/v1/posts/42"))
        #expect(response.status == 200)
        #expect(body(response) == "post 42 via /v1/posts/:id")
        #expect(response.route == "/v1/posts/:id")
    }

    @Test func nestedParameter() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: .PUT, path: "/v1/posts/7/like"))
        #expect(body(response) == "like 7")
    }

    @Test func literalBeatsParameter() async {
        let router = makeRouter()
        #expect(body(await router.respond(to: HTTPRequest(method: .GET, path: "/v1/users/me"))) == "me")
        #expect(body(await router.respond(to: HTTPRequest(method: .GET, path: "/v1/users/ann"))) == "user ann")
    }

    @Test func trailingSlashMatches() async {
        #expect(await makeRouter().respond(to: HTTPRequest(method: .GET, path: "/v1/posts/42/")).status == 200)
    }

    @Test func emptySegmentsAreSkipped() async {
        #expect(body(await makeRouter().respond(to: HTTPRequest(method: .PUT, path: "//v1//posts/7///like"))) == "like 7")
    }

    @Test func eachMethodHasItsOwnHandler() async {
        let router = Router(logger: Logger(label: "test", minimumLevel: .error, sink: { _ in }))
        for method in HTTPMethod.allCases {
            router.add(method, "/thing") { _ in .text(200, method.rawValue) }
        }
        for method in HTTPMethod.allCases {
            #expect(body(await router.respond(to: HTTPRequest(method: method, path: "/thing"))) == method.rawValue)
        }
    }

    @Test func unknownPathIs404Problem() async {
        let request = HTTPRequest(method: .GET, path: "/v1/nothing", requestID: "req-1")
        let response = await makeRouter().respond(to: request)
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(body(response).contains(#""code":"not_found""#))
        #expect(body(response).contains(#""requestId":"req-1""#))
        #expect(response.route == "unmatched")
    }

    @Test func tooShortOrTooLongPathIs404() async {
        let router = makeRouter()
        #expect(await router.respond(to: HTTPRequest(method: .GET, path: "/v1/posts")).status == 404)
        #expect(await router.respond(to: HTTPRequest(method: .GET, path: "/v1/posts/1/like/x")).status == 404)
    }

    @Test func wrongMethodIs405WithAllow() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: .POST, path: "/v1/posts/42"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, DELETE")
        #expect(body(response).contains(#""code":"method_not_allowed""#))
    }

    @Test func headIsServedByGet() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: .HEAD, path: "/v1/posts/9"))
        #expect(response.status == 200)
        // The router keeps the body; the server sends only its length.
        #expect(body(response) == "post 9 via /v1/posts/:id")
    }

    @Test func thrownHTTPErrorBecomesProblem() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: .GET, path: "/teapot"))
        #expect(response.status == 418)
        #expect(body(response).contains(#""code":"teapot""#))
        #expect(body(response).contains(#""detail":"short and stout""#))
    }

    @Test func otherErrorsBecome500WithoutDetail() async {
        let logged = LineSink()
        let router = Router(logger: Logger(label: "test", sink: { logged.append($0) }))
        router.add(.GET, "/boom") { _ in throw Boom() }
        let response = await router.respond(to: HTTPRequest(method: .GET, path: "/boom", requestID: "abc"))
        #expect(response.status == 500)
        #expect(body(response).contains(#""code":"internal""#))
        #expect(!body(response).contains("Boom"))
        // The cause goes to the log, with the request id.
        #expect(logged.all.count == 1)
        #expect(logged.all.first?.contains("Boom") == true)
        #expect(logged.all.first?.contains(#""requestId":"abc""#) == true)
    }

    @Test func routesAreListedInOrder() async {
        let routes = makeRouter().routes.map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(routes.count == 7)
        #expect(Set(routes).contains("PUT /v1/posts/:id/like"))
        #expect(Set(routes).contains("GET /v1/users/me"))
    }
}
