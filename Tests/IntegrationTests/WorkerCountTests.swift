import BrokerTestSupport
import Foundation
import Locking
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pipeline.workers: 0` starts one worker per CPU the gateway may use, not per CPU the
/// machine has: under `taskset` (systemd's `CPUAffinity=`, `docker --cpuset-cpus` alike) or
/// in a cgroup with a CPU quota of half a CPU (`docker --cpus 0.5`), one.
@Suite("Worker count")
struct WorkerCountTests {
    @Test("pipeline.workers 0: one worker per CPU the process may use; under taskset -c <one CPU>, one")
    func oneWorkerPerUsableCPU() async throws {
        #expect(try await Self.shards(launcher: []) == UsableProcessors.count())
        // The first CPU this test may use (a container's cpuset need not hold CPU 0).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let list = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let first = try #require(list.dropFirst("Cpus_allowed_list:".count).split(whereSeparator: { !$0.isNumber }).first)
        #expect(try await Self.shards(launcher: ["/usr/bin/taskset", "-c", String(first)]) == 1)
    }

    /// Root on a host with the cgroup v1 `cpu` controller (this CI machine): a cgroup of its own
    /// can be made. Elsewhere the CFS quota is covered by `UsableProcessorsTests` only.
    static let canMakeCPUCgroupV1 = getuid() == 0 && FileManager.default.isWritableFile(atPath: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us")

    @Test(
        "pipeline.workers 0 in a cgroup v1 limited to half a CPU: one worker",
        .enabled(if: canMakeCPUCgroupV1, "needs root and the cgroup v1 cpu controller"))
    func oneWorkerUnderACPUQuota() async throws {
        // A run killed mid-test left its cgroup behind: one with no process left is removed
        // (rmdir refuses a cgroup that still has one).
        let stale = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/fs/cgroup/cpu")) ?? []
        for name in stale where name.hasPrefix("wg-worker-count-") { rmdir("/sys/fs/cgroup/cpu/\(name)") }
        let cgroup = "/sys/fs/cgroup/cpu/wg-worker-count-\(getpid())"
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: false)
        defer { rmdir(cgroup) }
        try "100000".write(toFile: "\(cgroup)/cpu.cfs_period_us", atomically: false, encoding: .utf8)
        try "50000".write(toFile: "\(cgroup)/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
        // The launcher moves itself into the cgroup, then becomes the gateway.
        let shards = try await Self.shards(launcher: ["/bin/sh", "-c", #"echo $$ > "$1/cgroup.procs" && shift && exec "$@""#, "sh", cgroup])
        #expect(shards == 1)
    }

    /// The shards of a gateway started through `launcher`, from its published `gateway_queue_depth{shard=…}`.
    private static func shards(launcher: [String]) async throws -> Int {
        let broker = try await TestBroker.started()
        let (observer, metrics) = try await TestClients.observer(broker, subscribedTo: ["gateway/metrics"])
        let gateway = try GatewayProcess(
            broker: broker, arguments: ["--set", "registry.file=null", "--set", "metrics.publishInterval=0.2", "--set", "pipeline.workers=0"],
            launcher: launcher)
        try await gateway.waitUntilSubscribed()
        try await metrics.wait(timeout: 15, "gateway/metrics with the queue depths") { messages in
            PrometheusText.latest(in: messages)?.text.contains("gateway_queue_depth{") == true
        }
        let text = try #require(PrometheusText.latest(in: metrics.messages)).text
        let shards = Set(text.split(separator: "\n").filter { $0.hasPrefix("gateway_queue_depth{") }.map { $0.prefix { $0 != " " } })
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 40) == 0, "log:\n\(gateway.log.suffix(3000))")
        await observer.shutdown()
        return shards.count
    }
}
