// swift-tools-version:6.0
import PackageDescription

/// Release builds optimise across the package's modules, so a handler in `Chirp` inlines and
/// specialises what it calls in `Postgres`, `HTTP`, `Observability` and `EventLoops` as it could
/// within one module: the layers a request passes through stay apart without the module
/// boundaries adding calls to every request.
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "Chirp",
    products: [
        .executable(name: "chirp", targets: ["ChirpCLI"]),
        .executable(name: "chirp-bench-scripts", targets: ["ChirpBenchScripts"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(name: "CEpoll"),
        .target(name: "EventLoops", dependencies: ["CEpoll"], swiftSettings: crossModule),
        .target(name: "Postgres", dependencies: ["CLibPQ", "EventLoops"], swiftSettings: crossModule),
        .target(name: "Observability", dependencies: ["EventLoops"], swiftSettings: crossModule),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "EventLoops", "Observability"], swiftSettings: crossModule),
        .target(name: "Chirp", dependencies: ["Postgres", "HTTP", "Observability", "EventLoops", "CSodium"], swiftSettings: crossModule),
        .executableTarget(name: "ChirpCLI", dependencies: ["Chirp", "HTTP"], swiftSettings: crossModule),
        .executableTarget(name: "ChirpBenchScripts", dependencies: ["Chirp", "Postgres", "HTTP"]),
        .target(name: "TestSupport", dependencies: ["Postgres", "EventLoops", "HTTP"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "EventLoops", "TestSupport"]),
        .testTarget(name: "EventLoopsTests", dependencies: ["EventLoops", "TestSupport"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Observability", "TestSupport"]),
        .testTarget(name: "ChirpTests", dependencies: ["Chirp", "Postgres", "HTTP", "Observability", "CSodium", "TestSupport"]),
        .testTarget(name: "ChirpCLITests", dependencies: ["ChirpCLI", "Chirp", "Postgres", "HTTP", "TestSupport"]),
        .testTarget(name: "ChirpBenchScriptsTests", dependencies: ["ChirpBenchScripts", "Chirp", "Postgres", "EventLoops", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
