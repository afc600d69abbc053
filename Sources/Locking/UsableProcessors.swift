import Foundation

/// How many CPUs this process may use: the CPUs its affinity mask allows (`taskset`, systemd's
/// `CPUAffinity=`, `docker --cpuset-cpus`), capped by the CPU limits (cgroup v2 or v1) of its
/// cgroup and the cgroups above it (`docker --cpus`, a Kubernetes CPU limit, systemd's `CPUQuota=`),
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

    /// The tightest CPU limit of this process's cgroup and the cgroups above it, in whole CPUs
    /// rounded up; nil without one. cgroup v2: `cpu.max`; cgroup v1: the `cpu` controller's
    /// `cpu.cfs_quota_us` over `cpu.cfs_period_us`.
    public static func cgroupLimit() -> Int? {
        guard let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        var tightest: Int?
        for line in membership.split(separator: "\n") {
            // "0::/path" (v2) or "4:cpu,cpuacct:/path" (v1).
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let limit: Int?
            if fields[0] == "0" && fields[1].isEmpty {
                limit = smallestLimit(under: "/sys/fs/cgroup", path: fields[2]) { directory in
                    Self.limit(ofCPUMax: try? String(contentsOfFile: "\(directory)/cpu.max", encoding: .utf8))
                }
            } else if fields[1].split(separator: ",").contains("cpu") {
                limit = smallestLimit(under: "/sys/fs/cgroup/cpu", path: fields[2]) { directory in
                    Self.limit(
                        quota: try? String(contentsOfFile: "\(directory)/cpu.cfs_quota_us", encoding: .utf8),
                        period: try? String(contentsOfFile: "\(directory)/cpu.cfs_period_us", encoding: .utf8))
                }
            } else {
                continue
            }
            if let limit { tightest = min(tightest ?? limit, limit) }
        }
        return tightest
    }

    /// The smallest `limit` of the hierarchy's root and of each cgroup down to `path` (a
    /// container without its own cgroup namespace sees its cgroup at the root of the mount).
    private static func smallestLimit(under mount: String, path: Substring, limit: (String) -> Int?) -> Int? {
        var directory = mount
        var tightest = limit(directory)
        for component in path.split(separator: "/") {
            directory += "/\(component)"
            if let found = limit(directory) { tightest = min(tightest ?? found, found) }
        }
        return tightest
    }

    /// The whole CPUs (rounded up) a cgroup v1 CFS quota allows: quota `"50000"` over period
    /// `"100000"` is 1; a quota of `-1` (none), an absent file or anything unreadable is nil.
    public static func limit(quota: String?, period: String?) -> Int? {
        guard let quota, let period else { return nil }
        return wholeCPUs(quota: quota.trimmingCharacters(in: .whitespacesAndNewlines), period: period.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The whole CPUs (rounded up) a cgroup v2 `cpu.max` allows: `"150000 100000"` (quota and
    /// period in µs) is 2; `"max 100000"`, an absent file or anything unreadable is no limit (nil).
    public static func limit(ofCPUMax text: String?) -> Int? {
        guard let fields = text?.split(whereSeparator: \.isWhitespace), fields.count == 2 else { return nil }
        return wholeCPUs(quota: fields[0], period: fields[1])
    }

    /// `quota` over `period` rounded up, at least 1; nil unless both are positive numbers.
    private static func wholeCPUs(quota: some StringProtocol, period: some StringProtocol) -> Int? {
        guard let quota = Double(quota), let period = Double(period), quota > 0, period > 0 else { return nil }
        return max(1, Int((quota / period).rounded(.up)))
    }
}
