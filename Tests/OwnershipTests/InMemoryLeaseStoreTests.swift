import GatewayTime
import Ownership
import Testing

/// The lease contract (``LeaseStoreContract``) on ``InMemoryLeaseStore``, on a manual clock: the
/// same tests `PostgresLeaseTests` runs on PostgreSQL, here without a server and without waiting.
@Suite("Ownership leases in memory: the PostgreSQL store's contract")
struct InMemoryLeaseStoreTests {
    @Test("a live holder's lease is not taken; an expired one is, by the store's clock; renewal keeps an expired lease nobody took")
    func expiry() async throws { try await LeaseStoreContract.expiry(MemoryLeaseFixture()) }

    @Test("hand-over: only an offered partition is accepted, by compare-and-set under the next epoch")
    func handOver() async throws { try await LeaseStoreContract.handOver(MemoryLeaseFixture()) }

    @Test("the output ledger: an output is recorded once, only by its partition's holder under the epoch it holds; a hand-over fences the old holder, a restart's new run too")
    func outputLedger() async throws { try await LeaseStoreContract.outputLedger(MemoryLeaseFixture()) }

    @Test("leave ends the leases at once; a restart under the same name that knows its earlier run ended takes that run's at once")
    func leaveAndRestart() async throws { try await LeaseStoreContract.leaveAndRestart(MemoryLeaseFixture()) }

    @Test("one live run per name: a second run is refused with the other run's name, start and renewal, and changes nothing; it registers once that row expired")
    func oneLiveRunPerName() async throws { try await LeaseStoreContract.oneLiveRunPerName(MemoryLeaseFixture()) }

    @Test("a dead instance is adopted once, within the window after its row expired; its stand-in holds its leases under the next epochs; unadopted, they go after the window")
    func adoption() async throws { try await LeaseStoreContract.adoption(MemoryLeaseFixture()) }

    @Test("a stand-in that dies with its adopter (registered or not yet) is adopted again within the window")
    func standInAdoptedAgain() async throws { try await LeaseStoreContract.standInAdoptedAgain(MemoryLeaseFixture()) }

    @Test("after a store outage that let every row run out, the first instance back adopts nobody; a death while it is live is adopted")
    func noAdoptionAfterOutage() async throws { try await LeaseStoreContract.noAdoptionAfterOutage(MemoryLeaseFixture()) }
}

/// The contract's memory store, on a manual clock moved in steps of 10 ms.
struct MemoryLeaseFixture: LeaseStoreFixture {
    let clock = ManualGatewayClock(wallTime: 1_800_000_000)

    func store(adoptionWindow: Double) -> InMemoryLeaseStore { InMemoryLeaseStore(clock: clock, adoptionWindow: adoptionWindow) }

    func now() async throws -> Double { clock.wallTime() }

    @discardableResult
    func pass(atMost seconds: Double, until condition: () async throws -> Bool) async throws -> Bool {
        let step = 0.01
        for _ in 0..<Int(seconds / step) {
            if try await condition() { return true }
            clock.advance(by: step)
        }
        let held = try await condition()
        if !held { Issue.record("the store's time passed \(seconds) s and the awaited state never came") }
        return held
    }

    func writeSnapshot(device: String, partition: Int, epoch: Int64, by member: LeaseMember) async throws -> Bool? { nil }
}
