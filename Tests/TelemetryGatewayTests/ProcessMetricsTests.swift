import Foundation
import Prometheus
import TelemetryCore
import Testing

@testable import TelemetryGateway

@Suite("Process metrics from /proc/self")
struct ProcessMetricsTests {
    @Test("a stat line whose command name holds spaces and parentheses parses by field number")
    func parseStat() throws {
        // proc(5): pid (comm) state ppid ... utime(14) stime(15) ... starttime(22) vsize(23) rss(24)
        let line = "4242 (wearable (gw) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 731 269 0 0 20 0 9 0 123456 987654321 4321 18446744073709551615"
        let stat = try #require(ProcessStat.parse(line))
        #expect(stat == ProcessStat(userTicks: 731, systemTicks: 269, startTicks: 123456, virtualBytes: 987_654_321, residentPages: 4321))
        #expect(ProcessStat.parse("4242 (short) S 1 2") == nil)
    }

    @Test("a sample of this process exports the standard names with plausible values, and the build info")
    func sampleThisProcess() throws {
        let registry = PrometheusCollectorRegistry()
        let process = ProcessMetrics(factory: PrometheusMetricsFactory(registry: registry))
        process.sample()
        func value(_ name: String) -> Double? { registry.value(of: name) }
        #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((value("process_virtual_memory_bytes") ?? 0) >= (value("process_resident_memory_bytes") ?? .infinity))
        #expect((value("process_open_fds") ?? 0) >= 3)
        #expect((value("process_max_fds") ?? 0) >= (value("process_open_fds") ?? .infinity))
        let started = try #require(value("process_start_time_seconds"))
        #expect(abs(started - Date().timeIntervalSince1970) < 24 * 3600, "start time \(started)")
        #expect((value("process_cpu_seconds_total") ?? 0) > 0)
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self).contains(#"gateway_build_info{version="\#(ProductVersion.current)"} 1"#))
    }
}
