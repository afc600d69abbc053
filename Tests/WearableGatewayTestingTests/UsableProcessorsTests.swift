import Foundation
import Locking
import Testing

/// The CPU count behind `pipeline.workers: 0`: the affinity mask and the cgroup CPU limit
/// (a gateway under `taskset` starts one worker per allowed CPU: `WorkerCountTests`).
@Suite("Usable processors")
struct UsableProcessorsTests {
    @Test("Cpus_allowed: the bits of the mask, over every 32-bit group")
    func allowedMask() {
        #expect(UsableProcessors.allowedCount(inStatus: "Name:\tx\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n") == 2)
        #expect(UsableProcessors.allowedCount(inStatus: "Cpus_allowed:\t00000000,00000001") == 1)
        #expect(UsableProcessors.allowedCount(inStatus: "Cpus_allowed:\tffffffff,ffffffff\n") == 64)
        #expect(UsableProcessors.allowedCount(inStatus: "Cpus_allowed:\ta0") == 2)
        #expect(UsableProcessors.allowedCount(inStatus: "Cpus_allowed:\t0") == nil)
        #expect(UsableProcessors.allowedCount(inStatus: "Cpus_allowed:\tzz") == nil)
        #expect(UsableProcessors.allowedCount(inStatus: "Name:\tx\n") == nil)
    }

    @Test("cpu.max: quota over period rounded up to whole CPUs; max, absent or unreadable is no limit")
    func cpuMax() {
        #expect(UsableProcessors.limit(ofCPUMax: "150000 100000\n") == 2)
        #expect(UsableProcessors.limit(ofCPUMax: "200000 100000") == 2)
        #expect(UsableProcessors.limit(ofCPUMax: "50000 100000") == 1)
        #expect(UsableProcessors.limit(ofCPUMax: "1000 100000") == 1)
        #expect(UsableProcessors.limit(ofCPUMax: "max 100000") == nil)
        #expect(UsableProcessors.limit(ofCPUMax: nil) == nil)
        #expect(UsableProcessors.limit(ofCPUMax: "") == nil)
        #expect(UsableProcessors.limit(ofCPUMax: "100000 0") == nil)
    }

    @Test("cgroup v1: CFS quota over period rounded up; a quota of -1 or a missing file is no limit")
    func cfsQuota() {
        #expect(UsableProcessors.limit(quota: "50000\n", period: "100000\n") == 1)
        #expect(UsableProcessors.limit(quota: "250000", period: "100000") == 3)
        #expect(UsableProcessors.limit(quota: "-1\n", period: "100000\n") == nil)
        #expect(UsableProcessors.limit(quota: nil, period: "100000") == nil)
        #expect(UsableProcessors.limit(quota: "50000", period: nil) == nil)
    }

    @Test("this process: the kernel's mask, within what the machine has and the cgroup allows")
    func thisProcess() throws {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        let allowed = try #require(UsableProcessors.allowedCount(inStatus: status))
        #expect(allowed >= 1 && allowed <= ProcessInfo.processInfo.processorCount)
        #expect(UsableProcessors.count() == min(allowed, UsableProcessors.cgroupLimit() ?? allowed))
    }
}
