/// The fields of Linux's `/proc/self/stat` the process metrics need (proc(5)).
struct ProcessStat: Equatable {
    /// User and system CPU time, in clock ticks.
    var userTicks: UInt64
    var systemTicks: UInt64
    /// When the process started, in clock ticks after boot.
    var startTicks: UInt64
    /// Virtual memory size, bytes.
    var virtualBytes: UInt64
    /// Resident set size, pages.
    var residentPages: UInt64

    /// Parses a `stat` line; nil when it does not have the expected fields. The second field
    /// (the command name, in parentheses) may hold spaces and parentheses, so the fields are
    /// counted from the last `)`.
    static func parse(_ line: String) -> ProcessStat? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        // Fields after the name, starting with field 3 (state).
        let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        func field(_ number: Int) -> UInt64? {
            let index = number - 3
            return index < fields.count ? UInt64(fields[index]) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23), let resident = field(24) else { return nil }
        return ProcessStat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }
}
