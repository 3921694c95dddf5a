// swift-tools-version:6.1
import PackageDescription

let strictSwift6: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "nrfloader",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nrfloader", targets: ["nrfloader"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2")
    ],
    targets: [
        .executableTarget(
            name: "nrfloader",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "HexConverter",
                "Checksums",
                "Catalog",
            ],
            swiftSettings: strictSwift6
        ),
        .target(name: "HexConverter", swiftSettings: strictSwift6),
        .target(
            name: "Catalog",
            dependencies: ["CatalogEmbedded", "Checksums"],
            exclude: ["Embedded"],
            swiftSettings: strictSwift6
        ),
        .target(name: "CatalogEmbedded", path: "Sources/Catalog/Embedded"),
        .target(name: "Checksums", dependencies: ["SystemZlib", "SystemCrypto"], swiftSettings: strictSwift6),
        .systemLibrary(name: "SystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "SystemCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "DFUPackage", dependencies: ["Checksums", "SystemZlib"], swiftSettings: strictSwift6),
        .target(name: "DFUController", dependencies: ["Checksums"], swiftSettings: strictSwift6),
        .target(name: "DFUSimulator", dependencies: ["Checksums"], swiftSettings: strictSwift6),
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSwift6),
        .testTarget(name: "DFUPackageTests", dependencies: ["DFUPackage", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "DFUControllerTests",
            dependencies: ["DFUController", "TestSupport"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "DFUSimulatorTests", dependencies: ["DFUSimulator", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "HexConverterTests",
            dependencies: ["HexConverter", "TestSupport"],
            swiftSettings: strictSwift6
        ),
        .testTarget(name: "ChecksumsTests", dependencies: ["Checksums", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "CatalogTests",
            dependencies: ["Catalog", "CatalogEmbedded", "HexConverter", "TestSupport"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["TestSupport", "Checksums"],
            swiftSettings: strictSwift6
        ),
    ],
    cLanguageStandard: .gnu2x
)
