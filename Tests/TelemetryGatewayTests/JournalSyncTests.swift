@testable import GatewayJournal
import CPageCache
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Testing

@testable import TelemetryGateway

#if canImport(Glibc)
import Glibc
#endif

@Suite("Inbound journal sync: only the records not released go to disk")
struct JournalSyncTests {
    private static let header = JournalLayout.fileHeaderSize

    @Test("the live part of the ring maps to page-aligned file ranges: none, one, or two when it wraps")
    func fileRanges() {
        let capacity = 1 << 20
        #expect(JournalLayout.fileRanges(tail: 5000, head: 5000, capacity: capacity, pageSize: 4096).isEmpty)
        // One range: starts on the page holding the tail, ends at the head.
        #expect(
            JournalLayout.fileRanges(tail: 5000, head: 20000, capacity: capacity, pageSize: 4096)
                == [(Self.header + 5000) / 4096 * 4096..<(Self.header + 20000)])
        // Several laps on: positions are logical.
        let lap = UInt64(3 * capacity)
        #expect(
            JournalLayout.fileRanges(tail: lap + 8192, head: lap + 8200, capacity: capacity, pageSize: 4096)
                == [Self.header + 8192..<(Self.header + 8200)])
        // Wrapping the ring's end: the end of the ring, then its start.
        let tail = UInt64(capacity - 1000)
        #expect(
            JournalLayout.fileRanges(tail: tail, head: tail + 3000, capacity: capacity, pageSize: 4096)
                == [(Self.header + capacity - 1000) / 4096 * 4096..<(Self.header + capacity), Self.header..<(Self.header + 2000)])
        // A full ring from its start: all of it.
        #expect(
            JournalLayout.fileRanges(tail: lap, head: lap + UInt64(capacity), capacity: capacity, pageSize: 4096)
                == [Self.header..<(Self.header + capacity)])
        // Positions no journal makes: the whole ring, never a trap.
        #expect(JournalLayout.fileRanges(tail: 10, head: 5, capacity: capacity, pageSize: 4096) == [Self.header..<(Self.header + capacity)])
        #expect(
            JournalLayout.fileRanges(tail: 0, head: UInt64(capacity + 8), capacity: capacity, pageSize: 4096)
                == [Self.header..<(Self.header + capacity)])
        // 64 KiB pages (arm64 kernels): the header page is part of the first ring page.
        #expect(
            JournalLayout.fileRanges(tail: 100, head: 200, capacity: capacity, pageSize: 65536) == [0..<(Self.header + 200)])
    }

    /// Dirty pages of `path` in `range` (of the whole file when nil), as the kernel counts them.
    private static func dirtyPages(_ path: String, _ range: Range<Int>? = nil) throws -> UInt64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw JournalTestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        var counts = wg_page_cache_counts()
        let error = wg_page_cache_counts(descriptor, UInt64(range?.lowerBound ?? 0), UInt64(range?.count ?? 0), &counts)
        guard error == 0 else { throw JournalTestFailure("cachestat: \(String(cString: strerror(error)))") }
        return counts.dirty
    }

    /// A folder on the disk the package is on (the build folder), not /tmp, which may be a tmpfs
    /// whose pages are never written anywhere.
    private static func diskFolder() -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/journal-sync-tests/\(UUID().uuidString)")
    }

    /// Appends `count` records with payloads of `payloadBytes`; their tickets, oldest first.
    private static func append(_ count: Int, payloadBytes: Int, to journal: InboundJournal) throws -> [JournalTicket] {
        try (0..<count).map { index in
            let record = JournalRecord(
                topic: "wearables/watch-\(index % 7)/accelerometer", payload: [UInt8](repeating: UInt8(index % 251), count: payloadBytes),
                contentType: nil, retained: false, receivedAt: Double(index))
            guard case .stored(let ticket, _) = journal.append(record, maxWait: 0) else { throw JournalTestFailure("append \(index) refused") }
            return ticket
        }
    }

    /// Whether this kernel counts dirty pages (cachestat, Linux 6.5) of a file in `diskFolder()`
    /// and `fsync` cleans them: what the test below observes.
    private static let pagesObservable: Bool = {
        let folder = diskFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("probe").path
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return false }
        // Written with write(2): Foundation's createFile may sync the file itself.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = [UInt8](repeating: 7, count: 8192)
        guard write(descriptor, bytes, bytes.count) == bytes.count, let before = try? dirtyPages(path), before > 0 else { return false }
        return fsync(descriptor) == 0 && (try? dirtyPages(path)) == 0
    }()

    @Test(
        "sync writes the pages of the records not released and leaves the released ones to the kernel",
        .enabled(if: pagesObservable, "needs cachestat(2) (Linux 6.5) and a file system that writes pages back"))
    func syncWritesOnlyLivePages() throws {
        let folder = Self.diskFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("journal.bin").path
        let journal = try InboundJournal(path: path, capacity: 1 << 20, clock: SystemGatewayClock())
        let tickets = try Self.append(200, payloadBytes: 4000, to: journal)
        // The first 150 are done with; the tail moves past them.
        for ticket in tickets.prefix(150) { journal.release(ticket) }
        let live = try #require(journal.rangesToSync().first)
        #expect(journal.rangesToSync().count == 1)
        let released = Self.header..<(live.lowerBound)
        #expect(released.count > 100 * 4000)
        #expect(try Self.dirtyPages(path, live) > 0)
        #expect(try Self.dirtyPages(path, released) > 0)

        journal.sync()

        #expect(try Self.dirtyPages(path, live) == 0, "the records not released are on disk")
        #expect(try Self.dirtyPages(path, 0..<Self.header) == 0, "so is the header with the tail")
        // The released records were not written: ≈ 150 × 4 KB, left to the kernel's own writeback.
        #expect(try Self.dirtyPages(path, released) >= UInt64(released.count / 4096 - 2))
    }

    @Test("a sync reports the bytes it handed to msync: the live records' pages and the header")
    func syncOutcome() throws {
        let folder = Self.diskFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try InboundJournal(path: folder.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        #expect(journal.sync() == .init(bytes: Self.header, failure: nil), "nothing live: the header alone")
        let tickets = try Self.append(10, payloadBytes: 3000, to: journal)
        for ticket in tickets.prefix(5) { journal.release(ticket) }
        let live = journal.rangesToSync()
        #expect(live.count == 1)
        #expect(journal.sync() == .init(bytes: live.reduce(Self.header) { $0 + $1.count }, failure: nil))
    }

    @Test("the sync service counts what each sync wrote and the time it took, and syncs once more at shutdown")
    func syncServiceMetrics() async throws {
        let folder = Self.diskFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let journal = try InboundJournal(path: folder.appendingPathComponent("journal.bin").path, capacity: 1 << 20, clock: SystemGatewayClock())
        _ = try Self.append(1, payloadBytes: 5000, to: journal)
        let registry = PrometheusCollectorRegistry()
        let metrics = GatewayMetrics(factory: PrometheusMetricsFactory(registry: registry), shards: 1)
        let logger = Logger(label: "journal-sync-test")
        // An hour between syncs: the only sync is the one at shutdown.
        let group = ServiceGroup(services: [JournalSyncService(journal: journal, interval: 3600, metrics: metrics, clock: SystemGatewayClock(), logger: logger)], logger: logger)
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value
        let expected = journal.rangesToSync().reduce(Self.header) { $0 + $1.count }
        #expect(registry.value(of: "gateway_journal_synced_bytes_total") == Double(expected))
        #expect((registry.value(of: "gateway_journal_sync_seconds_total") ?? 0) > 0)
        #expect(registry.value(of: "gateway_journal_sync_failures_total") == 0)
    }
}
