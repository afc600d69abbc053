// swift-tools-version:6.2
// Benchmarks live in their own package (as in swift-nio) so that the gateway's build and CI
// do not compile the benchmark harness. Run from this folder:
//   swift package --disable-sandbox benchmark
// Figures and exact commands: ../docs/performance.md
import PackageDescription

let package = Package(
    name: "WearableGatewayBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WearableGateway", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TelemetryBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TelemetryCore", package: "WearableGateway"),
                .product(name: "TelemetrySimulation", package: "WearableGateway"),
            ],
            path: "Benchmarks/TelemetryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Fixed workloads for instruction counts under callgrind (see its main.swift).
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [
                .product(name: "TelemetryCore", package: "WearableGateway"),
                .product(name: "TelemetrySimulation", package: "WearableGateway"),
            ],
            path: "InstructionCounts"
        ),
    ]
)
