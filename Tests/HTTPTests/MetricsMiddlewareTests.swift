import HTTP
import Observability
import Testing

@Suite struct MetricsMiddlewareTests {
    @Test func middlewareRecordsRoutePatternNotPath() async throws {
        let metrics = Metrics()
        let router = Router()
        router.add(.GET, "/v1/posts/:id") { _ in .text(200, "x") }
        let middleware = MetricsMiddleware(metrics: metrics)
        for request in [HTTPRequest(method: .GET, path: "/v1/posts/123"), HTTPRequest(method: .GET, path: "/nope/123")] {
            middleware.willHandle(request)
            var response = await router.respond(to: request)
            middleware.didHandle(request, response: &response)
        }
        #expect(metrics.requestsInFlight == 0)
        let text = metrics.render()
        #expect(text.contains(#"http_requests_total{route="/v1/posts/:id",method="GET",status="200"} 1"#))
        #expect(text.contains(#"http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(!text.contains("123"))
    }
}
