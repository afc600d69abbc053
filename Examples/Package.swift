// swift-tools-version:6.2
// An app team's own integration tests against the gateway, using the testing kit exactly as a
// user would: a package dependency on WearableGateway (here by path, elsewhere by URL).
// Run: swift test --package-path Examples   (needs mosquitto; scripts/test.sh runs it)
import PackageDescription

let package = Package(
    name: "GatewayKitExample",
    // No platforms: like the WearableGateway package it depends on, this runs on Linux only
    // (Debian's libmosquitto, simdjson and xxHash; the kit spawns processes with glibc's posix_spawn).
    dependencies: [
        .package(name: "WearableGateway", path: "..")
    ],
    targets: [
        // A watch app's protobuf writer for the high-rate streams: no dependencies at all.
        .target(name: "DeviceProtobufEncoder", path: "DeviceProtobufEncoder"),
        .testTarget(
            name: "GatewayKitExampleTests",
            dependencies: [
                .product(name: "WearableGatewayTesting", package: "WearableGateway"),
                .product(name: "TelemetrySimulation", package: "WearableGateway"),
                .product(name: "TelemetryCore", package: "WearableGateway"),
                .product(name: "MQTTTransport", package: "WearableGateway"),
                "DeviceProtobufEncoder",
            ]
        )
    ]
)
