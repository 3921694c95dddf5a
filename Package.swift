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
        .executable(name: "nrfloader", targets: ["nrfloader"]),
        // The library (issue 21). Each product's public API is its first module alone; the modules listed after it
        // are the engine, whose declarations are `package`: this package's own CLI, tests and benchmarks use them,
        // a program outside sees none of them. Only NRFLoaderBlueZ links libdbus.
        .library(
            name: "NRFLoaderKit",
            targets: [
                "NRFLoaderKit", "DeviceLink", "Catalog", "Checksums", "HexConverter", "DFUController",
                "DFUTargetAdapter", "DFUPackage", "DFUSigning", "MCUbootImage", "MCUbootPackage", "SMP",
                "SMPTargetAdapter", "SMPUDP", "DetachedThread", "PackageBuilder", "BootloaderSettings",
            ]),
        .library(name: "NRFLoaderSimulator", targets: ["NRFLoaderSimulator", "DFUSimulator", "SMPSimulator"]),
        .library(
            name: "NRFLoaderSerial",
            targets: ["NRFLoaderSerial", "SerialLine", "SerialDFU", "SMPSerial", "SerialSimulator"]),
        .library(
            name: "NRFLoaderBlueZ",
            targets: ["NRFLoaderBlueZ", "BlueZ", "BlueZTransport", "DBus", "SMPBlueZ", "SimulatedPeripheral"]),
        // The flashing station: `nrfloader serve`'s HTTP server, its API and its page, over the four products above.
        .library(name: "NRFLoaderStation", targets: ["NRFLoaderStation", "StationAssets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        // `swift package generate-documentation` for the library's DocC catalogs (issue 21).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
        // The station's HTTP server (NRFLoaderStation only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Hummingbird's own dependencies, named for the station's logger and listening socket.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "nrfloader",
            // A client of the library's public API alone (issue 21): the same dependencies a package of its own would
            // have (scripts/cli-as-client.sh builds it as one), so it reaches none of the engine's modules.
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "NRFLoaderKit",
                "NRFLoaderSimulator",
                "NRFLoaderSerial",
                "NRFLoaderBlueZ",
                "NRFLoaderStation",
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "NRFLoaderStation",
            dependencies: [
                "NRFLoaderKit", "NRFLoaderSimulator", "NRFLoaderSerial", "NRFLoaderBlueZ", "StationAssets",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["Assets"],
            swiftSettings: strictSwift6
        ),
        // The page, its script and style, and the OpenAPI document, compiled into the executable with #embed.
        .target(name: "StationAssets", path: "Sources/NRFLoaderStation/Assets"),
        .target(
            name: "NRFLoaderKit",
            dependencies: [
                "DeviceLink",
                "BuildInfo", "Catalog", "Checksums", "DFUController", "DFUTargetAdapter", "DFUPackage", "DFUSigning",
                "HexConverter", "MCUbootImage", "MCUbootPackage", "SMP", "SMPTargetAdapter", "SMPUDP",
                "PackageBuilder", "BootloaderSettings",
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "NRFLoaderSimulator",
            dependencies: [
                "NRFLoaderKit", "Checksums", "DFUController", "DFUTargetAdapter", "DFUSimulator", "DFUPackage",
                "DFUSigning", "MCUbootImage", "MCUbootPackage", "SMP", "SMPSimulator",
                "SMPTargetAdapter", "SMPUDP", "DetachedThread",
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "NRFLoaderSerial",
            dependencies: [
                "NRFLoaderKit", "NRFLoaderSimulator", "DFUController", "DFUSimulator", "DFUTargetAdapter",
                "SerialLine", "SerialDFU", "SerialSimulator", "SMP", "SMPSerial", "SMPSimulator", "SMPTargetAdapter",
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "NRFLoaderBlueZ",
            dependencies: [
                "NRFLoaderKit", "NRFLoaderSimulator", "BlueZ", "BlueZTransport", "DBus", "DFUController",
                "DFUSimulator",
                "DFUTargetAdapter", "SimulatedPeripheral", "SMP", "SMPBlueZ", "SMPSimulator", "SMPTargetAdapter",
            ],
            swiftSettings: strictSwift6
        ),
        .target(name: "BuildInfo"),
        .target(name: "DeviceLink", swiftSettings: strictSwift6),
        .target(name: "SerialLine", swiftSettings: strictSwift6),
        .target(name: "HexConverter", swiftSettings: strictSwift6),
        .target(name: "SMP", dependencies: ["DeviceLink"], swiftSettings: strictSwift6),
        .target(name: "SMPTargetAdapter", dependencies: ["DeviceLink", "SMP"], swiftSettings: strictSwift6),
        // SMP over UDP (Zephyr's smp_udp.c): the socket transport and the datagram server the simulator serves on.
        .target(
            name: "SMPUDP", dependencies: ["DeviceLink", "DetachedThread", "SMP", "SMPTargetAdapter"],
            swiftSettings: strictSwift6),
        .target(
            name: "SMPSerial", dependencies: ["DeviceLink", "SMP", "SMPTargetAdapter", "SerialLine"],
            swiftSettings: strictSwift6),
        .target(
            name: "SMPBlueZ",
            dependencies: ["DeviceLink", "SMP", "SMPTargetAdapter", "BlueZTransport"],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "SMPSimulator",
            dependencies: ["DeviceLink", "SMP", "SMPTargetAdapter", "MCUbootImage", "Checksums", "SerialSimulator"],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "MCUbootImage",
            dependencies: ["Checksums", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift6
        ),
        .target(name: "MCUbootPackage", dependencies: ["MCUbootImage", "DFUPackage"], swiftSettings: strictSwift6),
        .target(
            name: "Catalog",
            dependencies: ["CatalogEmbedded", "Checksums"],
            exclude: ["Embedded"],
            swiftSettings: strictSwift6
        ),
        .target(name: "CatalogEmbedded", path: "Sources/Catalog/Embedded"),
        .target(
            name: "Checksums",
            dependencies: ["SystemZlib", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift6
        ),
        .systemLibrary(name: "SystemZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "DFUPackage", dependencies: ["Checksums", "SystemZlib"], swiftSettings: strictSwift6),
        .target(name: "DFUController", dependencies: ["DeviceLink", "Checksums"], swiftSettings: strictSwift6),
        .target(
            name: "PackageBuilder",
            dependencies: ["DFUPackage", "HexConverter", "Checksums"],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "BootloaderSettings",
            dependencies: ["PackageBuilder", "DFUPackage", "HexConverter", "Checksums"],
            swiftSettings: strictSwift6
        ),
        .target(name: "DFUTargetAdapter", dependencies: ["DeviceLink", "DFUController"], swiftSettings: strictSwift6),
        .target(
            name: "DFUSigning",
            dependencies: ["DFUPackage", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSwift6
        ),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(name: "DBus", dependencies: ["CDBus", "DetachedThread"], swiftSettings: strictSwift6),
        // The blocking loops' threads (D-Bus, sockets, timers), off the Swift cooperative pool.
        .target(name: "DetachedThread", swiftSettings: strictSwift6),
        .target(name: "BlueZ", dependencies: ["DeviceLink", "DBus"], swiftSettings: strictSwift6),
        .target(
            name: "BlueZTransport",
            dependencies: ["DeviceLink", "DetachedThread", "BlueZ", "DBus", "DFUTargetAdapter", "DFUController"],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "DFUSimulator",
            dependencies: ["DeviceLink", "Checksums", "DFUController", "DFUTargetAdapter"],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "SimulatedPeripheral",
            dependencies: [
                "DeviceLink", "DetachedThread", "BlueZ", "DBus", "DFUSimulator", "DFUController", "SMP", "SMPSimulator",
            ],
            swiftSettings: strictSwift6
        ),
        .target(
            name: "SerialDFU",
            dependencies: ["DeviceLink", "SerialLine", "Checksums", "DFUController", "DFUTargetAdapter"],
            swiftSettings: strictSwift6),
        .target(
            name: "SerialSimulator",
            dependencies: ["DeviceLink", "SerialDFU", "DFUSimulator", "DFUController"],
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "dfu-benchmark",
            dependencies: ["DeviceLink", "DFUController", "DFUTargetAdapter", "DFUSimulator", "DFUPackage"],
            path: "Benchmarks/DFUThroughput",
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "smp-benchmark",
            dependencies: [
                "DeviceLink", "SMP", "SMPTargetAdapter", "SMPSimulator", "MCUbootImage", "DFUSimulator", "Checksums",
            ],
            path: "Benchmarks/SMPThroughput",
            swiftSettings: strictSwift6
        ),
        .executableTarget(
            name: "bluez-benchmark",
            dependencies: ["DeviceLink", "BlueZTransport", "DFUController", "DFUTargetAdapter", "DFUPackage"],
            path: "Benchmarks/BlueZThroughput",
            swiftSettings: strictSwift6
        ),
        .target(
            // The BlueZ rig (a private dbus-daemon with bluezoo) lives here for every suite that needs a bus: hence BlueZ
            // and DBus.
            name: "TestSupport", dependencies: ["DeviceLink", "BlueZ", "DBus"], path: "Tests/TestSupport",
            swiftSettings: strictSwift6),
        .testTarget(name: "DeviceLinkTests", dependencies: ["DeviceLink"], swiftSettings: strictSwift6),
        .testTarget(name: "DFUPackageTests", dependencies: ["DFUPackage", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "DFUControllerTests",
            dependencies: ["DeviceLink", "DFUController", "TestSupport"],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "DFUSimulatorTests", dependencies: ["DeviceLink", "DFUSimulator", "TestSupport"],
            swiftSettings: strictSwift6),
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
            name: "DFUSigningTests",
            dependencies: ["DFUSigning", "DFUPackage", "TestSupport"],
            swiftSettings: strictSwift6
        ),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "BlueZ", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "BlueZTests", dependencies: ["BlueZ", "DBus", "DFUController", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "BlueZTransportTests",
            dependencies: [
                "BlueZTransport", "BlueZ", "DFUTargetAdapter", "DFUController", "DFUSimulator", "SimulatedPeripheral",
                "DeviceLink", "TestSupport",
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "SimulatedPeripheralTests",
            dependencies: [
                "SimulatedPeripheral", "BlueZ", "BlueZTransport", "DBus", "DFUSimulator", "DFUController",
                "DFUTargetAdapter", "DFUPackage", "DeviceLink", "MCUbootImage", "SMP", "SMPBlueZ", "SMPSimulator",
                "SMPTargetAdapter", "TestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "DFUTargetAdapterTests",
            dependencies: [
                "DeviceLink",
                "DFUTargetAdapter", "DFUController", "DFUSimulator", "DFUPackage", "DFUSigning", "NRFLoaderKit",
                "TestSupport",
            ],
            swiftSettings: strictSwift6
        ),
        .testTarget(
            name: "PackageBuilderTests", dependencies: ["PackageBuilder", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "BootloaderSettingsTests", dependencies: ["BootloaderSettings", "PackageBuilder", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SerialDFUTests",
            dependencies: ["DeviceLink", "SerialDFU", "Checksums", "DFUController", "DFUTargetAdapter", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(name: "SerialLineTests", dependencies: ["SerialLine"], swiftSettings: strictSwift6),
        .testTarget(
            name: "SerialSimulatorTests",
            dependencies: ["SerialSimulator", "SerialDFU", "SerialLine", "DFUSimulator"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPTests",
            dependencies: ["DeviceLink", "SMP", "MCUbootImage", "Checksums", "SMPSimulator", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPTargetAdapterTests",
            dependencies: [
                "DeviceLink", "SMP", "MCUbootImage", "Checksums", "SMPTargetAdapter", "SMPSimulator", "DFUSimulator",
                "TestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPUDPTests",
            dependencies: [
                "DeviceLink", "DetachedThread", "SMP", "SMPUDP", "SMPTargetAdapter", "SMPSimulator", "MCUbootImage",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPSimulatorTests", dependencies: ["SMPSimulator", "SMP", "MCUbootImage", "DeviceLink"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPSerialTests", dependencies: ["DeviceLink", "SMPSerial", "SMP", "SMPTargetAdapter"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "SMPBlueZTests",
            dependencies: [
                "SMPBlueZ", "SMPTargetAdapter", "SMP", "SMPSimulator", "SimulatedPeripheral", "BlueZ", "BlueZTransport",
                "DFUSimulator", "DeviceLink", "MCUbootImage", "TestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "MCUbootImageTests", dependencies: ["MCUbootImage", "TestSupport"], swiftSettings: strictSwift6),
        .testTarget(
            name: "MCUbootPackageTests", dependencies: ["MCUbootPackage", "MCUbootImage", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "NRFLoaderKitTests", dependencies: ["NRFLoaderKit", "NRFLoaderSimulator", "TestSupport"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "NRFLoaderSimulatorTests", dependencies: ["NRFLoaderSimulator", "NRFLoaderKit"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "NRFLoaderSerialTests",
            dependencies: [
                "NRFLoaderKit", "NRFLoaderSerial", "NRFLoaderSimulator", "SerialSimulator", "DFUSimulator",
                "TestSupport",
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "NRFLoaderBlueZTests", dependencies: ["NRFLoaderKit", "NRFLoaderBlueZ", "NRFLoaderSimulator"],
            swiftSettings: strictSwift6),
        .testTarget(
            name: "NRFLoaderStationTests",
            dependencies: [
                "NRFLoaderStation", "NRFLoaderKit", "NRFLoaderSimulator",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSwift6),
        .testTarget(
            // The one target that launches the built nrfloader (TestPaths.nrfloader); BlueZ/ runs it on the bluezoo rig.
            name: "CLITests",
            dependencies: [
                "TestSupport", "Checksums", "DFUPackage", "DFUSigning", "SMP", "NRFLoaderKit", "NRFLoaderSimulator",
                "BlueZ", "BlueZTransport", "DBus",
            ],
            swiftSettings: strictSwift6
        ),
    ],
    cLanguageStandard: .gnu2x
)
