import Foundation
import Ownership
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

@testable import TelemetryGateway

/// What the output ledger costs (docs/scale-out.md, *Fenced outputs*): `WG_LEDGER_BENCHMARK_OUTPUTS`
/// outputs of the contract's shapes keyed as a worker keys them (``FenceQueue/entry(_:countdown:)``:
/// the payload's `eventId` scanned), then recorded under their leases in batches of 1, 10, 100
/// and the service's largest, into PostgreSQL (`WG_TEST_POSTGRES_URL`). Prints one JSON line per
/// batch size. Runs only when asked: `bash Benchmarks/output-ledger.sh`.
@Suite(
    "Output ledger benchmark",
    .enabled(if: ProcessInfo.processInfo.environment["WG_LEDGER_BENCHMARK_OUTPUTS"] != nil && TestPostgres.url != nil))
struct OutputLedgerBenchmark {
    static let outputs = Int(ProcessInfo.processInfo.environment["WG_LEDGER_BENCHMARK_OUTPUTS"] ?? "") ?? 20_000

    @Test("keying per output on the worker; ledger statements per second and microseconds per output by batch size")
    func ledger() async throws {
        try await TestPostgres.withStore { client in
            let store = PostgresLeaseStore(client)
            let member = LeaseMember(name: "bench", incarnation: "bench-1")
            _ = try await store.heartbeat(member, ttl: 600)
            #expect(try await store.take(Array(0..<1024), by: member, ttl: 600).count == 1024)
            let partitions = OwnershipPartitions()
            let queue = FenceQueue(partitions: partitions, warmedLimit: 0)
            let start = Date().timeIntervalSince1970
            let clock = ContinuousClock()
            func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
            for batch in [1, 10, 100, FencedOutputs.batchKeys] {
                let count = batch == 1 ? min(Self.outputs, 2_000) : Self.outputs
                let messages = (0..<count).map { n in
                    var message = EventHistoryWriteBenchmark.message(n + batch * 10_000_000, start: start)
                    message.userProperties = [UserProperty(name: "instance", value: "bench"), UserProperty(name: "epoch", value: "1")]
                    return message
                }
                var keys: [OutputKey] = []
                let keying = clock.measure { keys = messages.compactMap { queue.key(of: $0) } }
                #expect(keys.count == count && keys.allSatisfy { !$0.eventID.isEmpty })
                var recorded = 0
                let recording = try await clock.measure {
                    for first in stride(from: 0, to: keys.count, by: batch) {
                        recorded += try await store.record(Array(keys[first..<min(keys.count, first + batch)]), by: member).recorded.count
                    }
                }
                #expect(recorded == count)
                let report: [String: Any] = [
                    "batch": batch, "outputs": count,
                    "keyingNanosecondsPerOutput": Int(seconds(keying) / Double(count) * 1e9),
                    "statementsPerSecond": Int(Double((count + batch - 1) / batch) / seconds(recording)),
                    "microsecondsPerOutput": (seconds(recording) / Double(count) * 1e6 * 10).rounded() / 10,
                    "outputsPerSecond": Int(Double(count) / seconds(recording)),
                ]
                print("output-ledger:", String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
            }
        }
    }
}
