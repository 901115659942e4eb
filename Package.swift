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
        .target(name: "Postgres", dependencies: ["CLibPQ"]),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD"]),
        .target(name: "Chirp", dependencies: ["Postgres", "HTTP", "CSodium"]),
        .executableTarget(name: "ChirpCLI", dependencies: ["Chirp"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP"]),
        .testTarget(name: "ChirpTests", dependencies: ["Chirp", "Postgres", "HTTP", "CSodium"]),
    ],
    swiftLanguageModes: [.v6]
)
