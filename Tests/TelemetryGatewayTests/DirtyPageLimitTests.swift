@testable import GatewayJournal
import Testing

@testable import TelemetryGateway

@Suite("Dirty page limit: the journal's ring against what the kernel lets stay dirty")
struct DirtyPageLimitTests {
    private static let meminfo = """
        MemTotal:        2048000 kB
        MemFree:          512000 kB
        MemAvailable:    1024000 kB
        Buffers:           10000 kB
        """

    @Test("vm.dirty_ratio percent of MemAvailable, unless vm.dirty_bytes is set")
    func parse() {
        let ratio = DirtyPageLimit.parse(meminfo: Self.meminfo, dirtyRatio: "20\n", dirtyBytes: "0\n")
        #expect(ratio?.bytes == 1_024_000 * 1024 / 100 * 20)
        #expect(ratio?.origin == "vm.dirty_ratio 20 % of 1000 MiB available")
        let bytes = DirtyPageLimit.parse(meminfo: Self.meminfo, dirtyRatio: "20\n", dirtyBytes: "104857600\n")
        #expect(bytes == DirtyPageLimit(bytes: 104_857_600, origin: "vm.dirty_bytes"))
        #expect(DirtyPageLimit.parse(meminfo: "MemTotal: 1 kB\n", dirtyRatio: "20", dirtyBytes: "0") == nil)
        #expect(DirtyPageLimit.parse(meminfo: Self.meminfo, dirtyRatio: "twenty", dirtyBytes: "0") == nil)
    }

    @Test("a ring above the limit is warned about, naming the key; one below is not")
    func warning() throws {
        let limit = DirtyPageLimit(bytes: 200 * 1_048_576, origin: "vm.dirty_ratio 20 % of 1000 MiB available")
        #expect(limit.warning(ringBytes: 128 * 1_048_576, path: "data/journal.bin") == nil)
        let text = try #require(limit.warning(ringBytes: 256 * 1_048_576, path: "data/journal.bin"))
        #expect(text.hasPrefix("journal.sizeBytes: the ring of data/journal.bin (256 MiB)"))
        #expect(text.contains("(200 MiB: vm.dirty_ratio 20 % of 1000 MiB available)"))
    }

    @Test("this machine's /proc gives a limit")
    func current() throws {
        let limit = try #require(DirtyPageLimit.current())
        #expect(limit.bytes > 0)
    }
}
