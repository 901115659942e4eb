@testable import HTTP
import Testing

@Suite struct ValueTypeTests {
    @Test func headersAreCaseInsensitiveAndOrdered() {
        var headers = HTTPHeaders()
        headers.add("Set-Cookie", "a=1")
        headers.add("set-cookie", "b=2")
        headers.add("X-Other", "x")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        headers.set("SET-cookie", "c=3")
        #expect(headers.values(for: "set-cookie") == ["c=3"])
        #expect(headers.map(\.name) == ["X-Other", "SET-cookie"])
        #expect(headers["missing"] == nil)
    }

    @Test func targetDecodesPathAndQuery() throws {
        let target = try #require(RequestTarget("/v1/a%20b/c?q=hello+world&q=second&tag=%23swift&empty&x=%zz"))
        #expect(target.path == "/v1/a b/c")
        #expect(target.query["q"] == "hello world")
        #expect(target.query["tag"] == "#swift")
        #expect(target.query["empty"] == "")
        #expect(target.query["x"] == "%zz")
    }

    @Test func plusStaysLiteralInPaths() throws {
        #expect(try #require(RequestTarget("/a+b")).path == "/a+b")
    }

    @Test func targetDecodingEdges() throws {
        // A fragment is dropped, a `%` without two hex digits stays, even at the very end.
        let target = try #require(RequestTarget("/p%2Fq%4?a=%4&b=1%2B1+2&c=%#frag"))
        #expect(target.path == "/p/q%4")
        #expect(target.query == ["a": "%4", "b": "1+1 2", "c": "%"])
        #expect(try #require(RequestTarget("/plain/path?")).path == "/plain/path")
        #expect(try #require(RequestTarget("/caf%C3%A9")).path == "/café")
        #expect(try #require(RequestTarget("/bad%FF")).path == "/bad\u{FFFD}")
    }

    @Test func targetMustBeAPath() {
        #expect(RequestTarget("http://example.com/") == nil)
        #expect(RequestTarget("*") == nil)
    }

    @Test func requestIDRules() {
        #expect(RequestID.isAcceptable("abc-DEF_1.2"))
        #expect(!RequestID.isAcceptable(""))
        #expect(!RequestID.isAcceptable("has space"))
        #expect(!RequestID.isAcceptable("quote\""))
        #expect(!RequestID.isAcceptable(String(repeating: "a", count: 129)))
        #expect(RequestID.isAcceptable(String(repeating: "a", count: 128)))
        let generated = RequestID.generate()
        #expect(generated.count == 32)
        #expect(RequestID.isAcceptable(generated))
        #expect(generated != RequestID.generate())
        #expect(RequestID.resolve(["x-request-id": "given.1"]) == "given.1")
        #expect(RequestID.resolve(["X-Request-ID": "bad id"]) != "bad id")
    }

    @Test func problemBodyShapeAndEscaping() {
        let response = Problem.response(
            for: HTTPError(422, code: "validation_failed", detail: "body \"x\"\nis empty"), requestID: "r1")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text == #"{"type":"/problems/validation_failed","title":"Unprocessable Content","status":422,"code":"validation_failed","detail":"body \"x\"\nis empty","requestId":"r1"}"#)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.headers["X-Request-ID"] == "r1")
    }

    @Test func conveniencesCarryTheirHeaders() {
        #expect(HTTPError.methodNotAllowed(allow: [.GET, .POST]).headers["Allow"] == "GET, POST")
        #expect(HTTPError.unauthorized().headers["WWW-Authenticate"] == "Bearer")
        #expect(HTTPError.tooManyRequests(retryAfter: 30).headers["Retry-After"] == "30")
        #expect(HTTPError.payloadTooLarge(limit: 10).code == "payload_too_large")
    }
}
