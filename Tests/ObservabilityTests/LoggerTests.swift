import Foundation
import Observability
import Synchronization
import Testing

@Suite struct LoggerTests {
    @Test func loggerWritesOneJSONObjectPerLine() {
        let sink = Lines()
        let logger = Logger(label: "t", minimumLevel: .info, sink: { sink.append($0) })
        logger.debug("hidden")
        logger.info("shown", ["n": 3, "s": "a\"b", "ok": true])
        #expect(sink.all.count == 1)
        let line = sink.all[0]
        #expect(line.hasPrefix(#"{"time":""#))
        #expect(line.contains(#""level":"info","logger":"t","msg":"shown","n":3,"s":"a\"b","ok":true}"#))
    }

    @Test func loggerWritesExtremeValuesWhole() throws {
        let sink = Lines()
        let logger = Logger(label: "t\u{1}", sink: { sink.append($0) })
        let long = String(repeating: "\u{0}", count: 200)
        logger.error("e", ["min": .int(Int.min), "max": .int(Int.max), "zero": 0, "tiny": .double(-1.2345678901234568e-300),
                           "nan": .double(.nan), "long": .string(long)])
        let line = try #require(sink.all.first)
        #expect(line.contains(#""level":"error","logger":"t\u0001","msg":"e","min":-9223372036854775808,"max":9223372036854775807,"zero":0"#))
        #expect(line.contains(#""tiny":-1.2345678901234568e-300,"nan":null,"long":""#))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((object?["long"] as? String) == long)
        #expect(line.range(of: #"^\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","#, options: .regularExpression) != nil)
    }
}

/// Collects the lines a logger hands its sink.
private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
