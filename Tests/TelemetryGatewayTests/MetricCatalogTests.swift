import Foundation
import Prometheus
import Testing
import WearableGatewayTesting

@testable import TelemetryGateway

/// The table of metric families (``MetricCatalog``) against the sources that create metrics and
/// against what the registry exports through ``CatalogMetricsFactory``.
@Suite("Metric catalog: one table of names, types, help and labels")
struct MetricCatalogTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/TelemetryGateway")

    /// Every metric family the gateway's sources create (`Counter(label: "…"`, `Gauge(label:`, …).
    static func familiesInSources() throws -> Set<String> {
        let pattern = try Regex(#"(?:Counter|Gauge|Timer|Recorder|Meter|DimensionedCounters)\(label: "([a-z_]+)""#)
        var names = Set<String>()
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test("the table holds exactly the families the sources create, each once, with a one-line help")
    func tableMatchesTheSources() throws {
        let inSources = try Self.familiesInSources()
        let inTable = MetricCatalog.families.map(\.name)
        #expect(inSources.count > 90, "the source scan found only \(inSources.count) families")
        #expect(Set(inTable).count == inTable.count, "a family is listed twice")
        #expect(inSources.subtracting(inTable).sorted() == [], "created in the sources, missing from MetricCatalog")
        #expect(Set(inTable).subtracting(inSources).sorted() == [], "listed in MetricCatalog, created nowhere")
        for family in MetricCatalog.families {
            #expect(!family.help.isEmpty && !family.help.contains("\n") && family.help.hasSuffix("."), "\(family.name): \(family.help)")
            #expect(family.kind != .counter || family.name.hasSuffix("_total"), "\(family.name): a counter's name ends in _total")
            // One prefix for the gateway's own families; the process_* ones are the standard names.
            #expect(family.name.hasPrefix("gateway_") || family.name.hasPrefix("process_"), "\(family.name): not gateway_ (CHANGELOG, Renamed metrics)")
        }
    }

    @Test("the gateway's metric sets, made through CatalogMetricsFactory, export each family with its table help, type and labels")
    func exportedWithHelp() throws {
        let registry = PrometheusCollectorRegistry()
        let factory = CatalogMetricsFactory(registry: registry)
        let gateway = GatewayMetrics(factory: factory, shards: 2)
        let devices = DeviceStateMetrics(factory: factory, shards: 2)
        let recorder = RecorderMetrics(factory: factory)
        let cluster = OwnershipMetrics(factory: factory)
        let latency = EventLatencyMetrics(factory: factory)
        let process = ProcessMetrics(factory: factory)
        let fleet = FleetView(metricsFactory: factory)
        process.sample()
        withExtendedLifetime((gateway, devices, recorder, cluster, latency, fleet)) {}
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let text = PrometheusText(text: String(decoding: buffer, as: UTF8.self))
        #expect(text.families.count > 80, "\(text.families.count) families")
        for name in text.families.sorted() {
            let family = try #require(MetricCatalog.byName[name], "\(name) is not in MetricCatalog")
            #expect(text.help[name] == family.help, "\(name)")
            #expect(text.types[name] == family.kind.rawValue, "\(name)")
            let sampleNames = family.kind == .histogram ? ["_bucket", "_sum", "_count"].map { name + $0 } : [name]
            for sample in text.samples where sampleNames.contains(sample.name) {
                let labels = Set(sample.labels.keys).subtracting(["le"])
                #expect(labels.isSubset(of: family.labels), "\(sample.name) has labels \(labels.sorted()), the table says \(family.labels)")
            }
        }
    }
}
