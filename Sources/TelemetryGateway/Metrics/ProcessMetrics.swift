import CoreMetrics
import Foundation
import Locking
import MQTTTransport
import TelemetryCore

#if canImport(Glibc)
import Glibc
#endif

/// The process metrics every Prometheus client library exports, under their standard names
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
/// `process_open_fds`, `process_max_fds`, `process_start_time_seconds`), read from Linux's
/// `/proc/self` at each ``sample()``, and `gateway_build_info{version}` (always 1), the
/// usual way to put the running version into queries and dashboards.
final class ProcessMetrics: Sendable {
    private let cpuSeconds: FloatingPointCounter
    private let residentBytes: Gauge
    private let virtualBytes: Gauge
    private let openDescriptors: Gauge
    private let maximumDescriptors: Gauge
    private let startTime: Gauge
    /// CPU seconds already counted (the counter takes increments).
    private let countedCPUSeconds = LockedState(0.0)

    init(factory: any MetricsFactory) {
        cpuSeconds = FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory)
        residentBytes = Gauge(label: "process_resident_memory_bytes", factory: factory)
        virtualBytes = Gauge(label: "process_virtual_memory_bytes", factory: factory)
        openDescriptors = Gauge(label: "process_open_fds", factory: factory)
        maximumDescriptors = Gauge(label: "process_max_fds", factory: factory)
        startTime = Gauge(label: "process_start_time_seconds", factory: factory)
        Gauge(label: "gateway_build_info", dimensions: [("version", ProductVersion.current)], factory: factory).record(1)
    }

    /// Reads `/proc/self` and records the levels; does nothing where there is no `/proc`.
    func sample() {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let stat = ProcessStat.parse(text) else { return }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let cpu = Double(stat.userTicks + stat.systemTicks) / ticksPerSecond
        let increment = countedCPUSeconds.withLock { counted -> Double in
            defer { counted = max(counted, cpu) }
            return max(0, cpu - counted)
        }
        if increment > 0 { cpuSeconds.increment(by: increment) }
        residentBytes.record(Int64(clamping: stat.residentPages * pageSize))
        virtualBytes.record(Int64(clamping: stat.virtualBytes))
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") { openDescriptors.record(descriptors.count) }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maximumDescriptors.record(Int64(clamping: limit.rlim_cur)) }
        if let bootTime = Self.bootTime { startTime.record(bootTime + Double(stat.startTicks) / ticksPerSecond) }
    }

    /// The system's boot time, Unix epoch seconds (`btime` in `/proc/stat`).
    private static let bootTime: Double? = {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
        else { return nil }
        return Double(line.dropFirst("btime ".count))
    }()
}
