// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Chirp",
    products: [
        .executable(name: "chirp", targets: ["ChirpCLI"]),
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
        .target(name: "EventLoops", dependencies: ["CEpoll"]),
        .target(name: "Postgres", dependencies: ["CLibPQ", "EventLoops"]),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "EventLoops"]),
        .target(name: "Chirp", dependencies: ["Postgres", "HTTP", "EventLoops", "CSodium"]),
        .executableTarget(name: "ChirpCLI", dependencies: ["Chirp"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "EventLoops"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "EventLoops"]),
        .testTarget(name: "ChirpTests", dependencies: ["Chirp", "Postgres", "HTTP", "CSodium"]),
    ],
    swiftLanguageModes: [.v6]
)
