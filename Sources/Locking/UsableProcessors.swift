import Foundation

/// How many CPUs this process may use: the CPUs its affinity mask allows (`taskset`, systemd's
/// `CPUAffinity=`, `docker --cpuset-cpus`), capped by the cgroup v2 CPU limits of its cgroup and
/// the cgroups above it (`docker --cpus`, a Kubernetes CPU limit, systemd's `CPUQuota=`),
/// rounded up. Foundation's `activeProcessorCount` counts every CPU of the machine, so a gateway
/// limited to 2 of 64 would otherwise start 64 workers.
public enum UsableProcessors {
    /// The CPUs the calling thread may run on, capped by the process's cgroup CPU limit; at
    /// least 1. Without `/proc`, Foundation's `activeProcessorCount`.
    public static func count() -> Int {
        let status = try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        let allowed = status.flatMap(allowedCount(inStatus:)) ?? ProcessInfo.processInfo.activeProcessorCount
        return max(1, min(allowed, cgroupLimit() ?? allowed))
    }

    /// The number of CPUs in the `Cpus_allowed:` line of a `/proc/…/status` text (a hexadecimal
    /// mask in comma-separated 32-bit groups, `ff` or `00000000,00000003`); nil without one.
    public static func allowedCount(inStatus status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for digit in line.dropFirst("Cpus_allowed:".count) where digit != "," && !digit.isWhitespace {
            guard let value = digit.hexDigitValue else { return nil }
            count += value.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// The tightest CPU limit (`cpu.max`) of this process's cgroup v2 and the cgroups above it,
    /// in whole CPUs rounded up; nil without one (or under cgroup v1).
    public static func cgroupLimit() -> Int? {
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return nil }
        var path = "/sys/fs/cgroup"
        var tightest = limit(ofCPUMax: try? String(contentsOfFile: "\(path)/cpu.max", encoding: .utf8))
        for component in line.dropFirst(3).split(separator: "/") {
            path += "/\(component)"
            if let limit = limit(ofCPUMax: try? String(contentsOfFile: "\(path)/cpu.max", encoding: .utf8)) {
                tightest = min(tightest ?? limit, limit)
            }
        }
        return tightest
    }

    /// The whole CPUs (rounded up) a cgroup v2 `cpu.max` allows: `"150000 100000"` (quota and
    /// period in µs) is 2; `"max 100000"`, an absent file or anything unreadable is no limit (nil).
    public static func limit(ofCPUMax text: String?) -> Int? {
        guard let fields = text?.split(whereSeparator: \.isWhitespace), fields.count == 2,
            let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0
        else { return nil }
        return max(1, Int((quota / period).rounded(.up)))
    }
}
