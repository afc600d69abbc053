// swift-tools-version:6.2
// The frame decoder's fuzz target lives in its own package (as the benchmarks do) so that the
// gateway's build never compiles it: it links only with `-sanitize=fuzzer`. Built and run by
// ../scripts/fuzz.sh; what it checks and how to run it: ../docs/testing.md ("Fuzzing").
import PackageDescription

let package = Package(
    name: "WearableGatewayFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WearableGateway", path: "../")
    ],
    targets: [
        .executableTarget(
            name: "FrameDecoderFuzz",
            dependencies: [.product(name: "TelemetryCore", package: "WearableGateway")],
            path: "FrameDecoderFuzz",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ]
)
