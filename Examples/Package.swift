// swift-tools-version:6.1
// Programs that use nrfloader's library products, built against this checkout by path (issue 21). CI builds and
// runs both (scripts/examples.sh): GettingStarted is the first code block of NRFLoaderKit's Getting Started article,
// byte for byte; UpdateService is a long-running service that updates devices from jobs on standard input.
import PackageDescription

let package = Package(
    name: "nrfloader-examples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "nrfloader", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "GettingStarted",
            dependencies: [
                .product(name: "NRFLoaderKit", package: "nrfloader"),
                .product(name: "NRFLoaderSimulator", package: "nrfloader"),
            ]
        ),
        .executableTarget(
            name: "UpdateService",
            dependencies: [
                .product(name: "NRFLoaderKit", package: "nrfloader"),
                .product(name: "NRFLoaderSimulator", package: "nrfloader"),
                .product(name: "NRFLoaderSerial", package: "nrfloader"),
                .product(name: "NRFLoaderBlueZ", package: "nrfloader"),
            ]
        ),
    ]
)
