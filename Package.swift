// swift-tools-version:6.2
// 6.2 at least: SwiftPM accepts the unsafeFlags of CSimdjson and TelemetryCore (below) from a
// dependency fetched by version only when its manifest declares tools version 6.2 or later;
// scripts/check-versioned-dependency.sh proves it (docs/architecture.md, Decisions).
import PackageDescription

let package = Package(
    name: "WearableGateway",
    // Linux only (Debian's libmosquitto, simdjson, xxHash; the kit's process spawning is glibc's
    // posix_spawn with GNU extensions): no Apple platform is declared.
    products: [
        .executable(name: "wearable-gateway", targets: ["GatewayCLI"]),
        .executable(name: "wearable-sim", targets: ["SimulatorCLI"]),
        .library(name: "TelemetryCore", targets: ["TelemetryCore"]),
        .library(name: "MQTTTransport", targets: ["MQTTTransport"]),
        .library(name: "TelemetryGateway", targets: ["TelemetryGateway"]),
        .library(name: "TelemetrySimulation", targets: ["TelemetrySimulation"]),
        // The testing kit for users' own integration tests (docs/testing.md).
        .library(name: "WearableGatewayTesting", targets: ["WearableGatewayTesting"]),
        // Preloaded into a child process by tests that step its wall clock (docs/testing.md).
        .library(name: "WallClockShim", type: .dynamic, targets: ["CWallClockShim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // Already in the graph through postgres-nio; named for the HTTPS listeners' certificates.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP/HTTP only: the default traits also build the gRPC exporter (grpc-swift-2 and its
        // transport), which every clean build would pay for (docs/architecture.md, Decisions).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // libmosquitto (Debian libmosquitto-dev). Only MQTTTransport imports it.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]
        ),
        // xxHash (Debian libxxhash-dev): checksums of the inbound journal's records.
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"]), .brew(["xxhash"])]),
        // simdjson (Debian libsimdjson-dev) behind a C header, for the hot-path decoders. NDEBUG in
        // every configuration: without it the simdjson code compiled here from its header (the DOM
        // accessors, the number conversion the batch fast path calls) keeps its internal
        // assumptions as assert() calls, out-of-line checks on the hot path.
        .target(
            name: "CSimdjson",
            cxxSettings: [.unsafeFlags(["-O3"]), .define("NDEBUG")],
            linkerSettings: [.linkedLibrary("simdjson")]
        ),
        // posix_spawn with the GNU extensions Swift's Glibc module hides: the tests' and the kit's
        // child processes (ChildProcess) inherit nothing but their standard streams.
        .target(name: "CSpawn"),
        // The wall-clock offset preloaded into children by the clock-step tests (WallClockShim).
        .target(name: "CWallClockShim"),
        // The MQTT words the core and the transport share (MQTTQoS, UserProperty). No dependencies,
        // so the core stays free of the client library and the transport of the core.
        .target(name: "MQTTVocabulary"),
        // The pure core is optimised in debug builds too: its tests push hours of seeded signals
        // through it, and the fault suite's debug gateway must answer a 100,000-device storm
        // within the time bound (docs/reliability.md). Debugging it is still possible with -Onone.
        .target(
            name: "TelemetryCore",
            dependencies: ["MQTTVocabulary", "CSimdjson", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // Shared mutable state, one idiom for the whole package (docs/architecture.md, Decisions):
        // LockedState guards it; MonotonicCondition is only for a thread that blocks waiting for a
        // change, with deadlines no step of the wall clock moves.
        .target(name: "Locking"),
        // Where the runtime reads the time and sleeps (GatewayClock): the system's clocks, or a
        // manual clock a test moves. Below every part that keeps a schedule, the ownership
        // leases included.
        .target(name: "GatewayTime", dependencies: ["Locking"]),
        // Who processes a device here (OwnershipPort): one owner in single mode, partitions
        // leased in the shared store in the clustered modes. The store's statements are behind
        // LeaseStoring, which PostgresStore implements.
        .target(
            name: "Ownership",
            dependencies: ["GatewayTime", "Locking", "TelemetryCore", .product(name: "Logging", package: "swift-log")]
        ),
        // The configuration: the keys table (YAML, environment, flags, docs), validation, and the
        // access policy files it names. No runtime; TelemetryGateway re-exports it.
        .target(
            name: "GatewayConfig",
            dependencies: [
                "TelemetryCore", "MQTTTransport", "PostgresStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The inbound journal: an mmap'd ring of received frames, each released once its outputs
        // are acknowledged (docs/reliability.md). No MQTT, no gateway types.
        .target(
            name: "GatewayJournal",
            dependencies: ["Locking", "GatewayTime", "CXXHash", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "MQTTTransport",
            dependencies: [
                "CMosquitto", "Locking", "MQTTVocabulary",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The historical accelerometer store: SQLite (Debian libsqlite3-dev) through GRDB.
        // Only this target touches the database.
        .target(
            name: "RecorderStore",
            dependencies: ["TelemetryCore", "Locking", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The shared store of clustered gateways: recorder and device snapshots in PostgreSQL
        // (Debian `postgresql`) through postgres-nio. Only this target imports PostgresNIO.
        .target(
            name: "PostgresStore",
            dependencies: [
                "RecorderStore", "TelemetryCore", "Locking", "Ownership",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "TelemetrySimulation", dependencies: ["TelemetryCore", "MQTTVocabulary"]),
        .target(
            name: "TelemetryGateway",
            dependencies: [
                "TelemetryCore",
                "MQTTTransport",
                "Locking",
                "GatewayTime",
                "Ownership",
                "GatewayJournal",
                "GatewayConfig",
                "RecorderStore",
                "PostgresStore",
                "CXXHash",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Only its header parsing (Bearer, Basic); HummingbirdBcrypt and the rest are not built.
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            // The OpenAPI document the HTTP server serves at /openapi.yaml: a link to
            // contract/openapi.yaml, compiled in as bytes (PackageResources.openapi_yaml), so the
            // served document is the checked one and nothing is read from disk at run time.
            resources: [.embedInCode("Operations/openapi.yaml")]
        ),
        // The testing kit: a private mosquitto, the in-process gateway, waits on derived events,
        // session capture and replay with fault injection. No XCTest/Testing dependency: it
        // reports failures by throwing, which both frameworks record.
        .target(
            name: "WearableGatewayTesting",
            dependencies: [
                "CSpawn", "Locking", "TelemetryGateway", "TelemetryCore", "TelemetrySimulation", "MQTTTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "GatewayCLI",
            dependencies: [
                "TelemetryGateway",
                "Ownership",
                "TelemetryCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Links the whole gateway (Hummingbird, GRDB): `wearable-sim testbed` runs it in-process,
        // HTTP endpoints and recorder included, through the testing kit.
        .executableTarget(
            name: "SimulatorCLI",
            dependencies: [
                "TelemetrySimulation",
                "WearableGatewayTesting",
                "TelemetryGateway",
                "MQTTTransport",
                "TelemetryCore",
                "Locking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TelemetryCoreTests",
            dependencies: ["TelemetryCore", "TelemetrySimulation"],
            resources: [.copy("Fixtures")]
        ),
        // A private database per test in the PostgreSQL of WG_TEST_POSTGRES_URL (scripts/test.sh).
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "PostgresStore", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport"
        ),
        // The store conformance suite runs against SQLite and, with WG_TEST_POSTGRES_URL, PostgreSQL.
        .testTarget(
            name: "RecorderStoreTests",
            dependencies: [
                "RecorderStore", "PostgresStore", "PostgresTestSupport", "TelemetryCore", "TelemetrySimulation", "Locking", "Ownership", "GatewayTime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The event history's documented SQLite queries run on the recorder's file.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "TelemetrySimulationTests", dependencies: ["TelemetrySimulation", "TelemetryCore"]),
        // The lease state machine on a manual clock, and the leases against PostgreSQL.
        .testTarget(
            name: "OwnershipTests",
            dependencies: [
                "Ownership", "GatewayTime", "Locking", "PostgresStore", "PostgresTestSupport", "TelemetryCore",
                .product(name: "Logging", package: "swift-log"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Test helpers of the project's own broker-backed tests (TLS certificates, event
        // recorder); re-exports the testing kit, which holds the broker and gateway harness.
        .target(
            name: "BrokerTestSupport",
            dependencies: ["MQTTTransport", "Locking", "WearableGatewayTesting", .product(name: "Logging", package: "swift-log")],
            path: "Tests/BrokerTestSupport"
        ),
        .testTarget(
            name: "MQTTTransportTests",
            dependencies: ["MQTTTransport", "BrokerTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // cachestat(2) for the journal's sync test: which pages the kernel still holds dirty.
        .target(name: "CPageCache", path: "Tests/CPageCache"),
        .testTarget(
            name: "TelemetryGatewayTests",
            dependencies: [
                "CPageCache", "TelemetryGateway", "GatewayJournal", "GatewayConfig", "TelemetryCore", "MQTTTransport", "TelemetrySimulation", "RecorderStore", "PostgresStore", "Locking",
                "BrokerTestSupport",
                // The kit's PrometheusText reads the registry's exposition (MetricCatalogTests).
                "WearableGatewayTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // StoreReadFailureTests damages a stored snapshot in the SQLite file.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The testing kit's pure parts: capture format, fault schedules, ground-truth diffs.
        .testTarget(
            name: "WearableGatewayTestingTests",
            dependencies: [
                "WearableGatewayTesting", "MQTTTransport", "Locking", "TelemetryCore",
                // PrometheusText is checked against the registry's own exposition.
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "TelemetryGateway", "TelemetryCore", "TelemetrySimulation", "MQTTTransport", "BrokerTestSupport", "RecorderStore",
                "WearableGatewayTesting", "Locking", "PostgresStore", "PostgresTestSupport", "Ownership",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && !["CSimdjson", "CSpawn", "CWallClockShim", "CPageCache"].contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
