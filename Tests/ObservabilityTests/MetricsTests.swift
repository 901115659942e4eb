import Observability
import Synchronization
import Testing

@Suite struct MetricsTests {
    @Test func countsAndHistogramsRender() {
        let metrics = Metrics(durationBuckets: [0.01, 0.1])
        metrics.observeRequest(route: "/v1/posts/:id", method: "GET", status: 200, seconds: 0.005)
        metrics.observeRequest(route: "/v1/posts/:id", method: "GET", status: 200, seconds: 0.05)
        metrics.observeRequest(route: "/v1/posts/:id", method: "GET", status: 404, seconds: 0.5)
        let text = metrics.render()
        #expect(text.contains(#"http_requests_total{route="/v1/posts/:id",method="GET",status="200"} 2"#))
        #expect(text.contains(#"http_requests_total{route="/v1/posts/:id",method="GET",status="404"} 1"#))
        #expect(text.contains(#"http_request_duration_seconds_bucket{route="/v1/posts/:id",le="0.01"} 1"#))
        #expect(text.contains(#"http_request_duration_seconds_bucket{route="/v1/posts/:id",le="0.1"} 2"#))
        #expect(text.contains(#"http_request_duration_seconds_bucket{route="/v1/posts/:id",le="+Inf"} 3"#))
        #expect(text.contains(#"http_request_duration_seconds_count{route="/v1/posts/:id"} 3"#))
        #expect(text.contains("# TYPE http_request_duration_seconds histogram"))
    }

    @Test func gaugesAreReadAtRenderTime() {
        let metrics = Metrics()
        let reads = Atomic<Int>(0)
        metrics.registerGauge("db_pool_in_use", help: "Connections leased.") {
            Double(reads.add(1, ordering: .relaxed).newValue)
        }
        metrics.registerGauge("db_pool_size", help: "Pool size.", labels: ["pool": "main"]) { 8 }
        #expect(metrics.render().contains("db_pool_in_use 1\n"))
        let text = metrics.render()
        #expect(text.contains("db_pool_in_use 2\n"))
        #expect(text.contains("# TYPE db_pool_size gauge"))
        #expect(text.contains(#"db_pool_size{pool="main"} 8"#))
    }

    @Test func applicationCountersAndLabelEscaping() {
        let metrics = Metrics()
        metrics.increment("logins_failed_total", help: "Failed logins.", labels: ["reason": "bad \"password\""])
        metrics.increment("logins_failed_total", help: "Failed logins.", labels: ["reason": "bad \"password\""], by: 2)
        let text = metrics.render()
        #expect(text.contains("# TYPE logins_failed_total counter"))
        #expect(text.contains(#"logins_failed_total{reason="bad \"password\""} 3"#))
    }
}
