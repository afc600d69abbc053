import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import TelemetrySimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue #24's proof on the shared store: three real `wearable-gateway` processes in partitioned
/// mode on one mosquitto and one PostgreSQL database. A diver and a watch uploading its
/// CMSensorRecorder history share an owner, which is killed (SIGKILL) mid-dive and mid-upload;
/// the others take both over, the devices go on to the end, and the killed instance comes back
/// with its name and data directory (its journal replays what it had received). Then: a recorder
/// query returns the whole history, whichever instance answers it; one dive summary with the
/// real start and maximum depth; no depth state older than the latest published after the
/// return, and the broker retains the dive's final state (docs/scale-out.md).
@Suite(
    "Scale-out on PostgreSQL: three instances, the owner killed and restarted", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresClusterTests {
    static let diveStart = 1_700_000_000.0
    /// Frames per second the diver sends: its 6 per second of dive time, sped up 15×.
    static let rate = 90.0
    /// Recorder history: `chunkCount` uploads of 150 samples at 50 Hz, from half an hour ago
    /// (inside the retention window).
    static let chunkCount = 30
    static let historyStart = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 1800
    static let hello = #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.1","app":"com.example.tremor","authorization":"authorized"}"#

    static let chunks = RecorderHistory.chunks(chunkCount, from: historyStart, identifier: 91)

    /// One message of the merged schedule and the device connection that sends it.
    struct Send: Sendable {
        let client: MQTTClient
        let message: MQTTMessage
        /// The recorder upload's index, for a chunk.
        let chunk: Int?
    }

    /// Sends `schedule` at ``rate`` (the devices' pace, not a synchronisation), each message
    /// acknowledged by the broker.
    static func play(_ schedule: ArraySlice<Send>) async throws {
        let clock = ContinuousClock()
        let begin = clock.now
        for (count, send) in schedule.enumerated() {
            try await send.client.publish(send.message)
            let due = begin + .seconds(Double(count + 1) / rate)
            if due > clock.now { try await Task.sleep(until: due, clock: clock) }
        }
    }

    /// A depth state as published: its date, state name and event id.
    struct PublishedDepthState: CustomStringConvertible {
        let date: Double
        let state: String
        let eventId: String
        init?(_ message: MQTTMessage) {
            let object = RecorderRequester.object(message)
            guard let date = (object["date"] as? NSNumber)?.doubleValue, let state = object["state"] as? String, let eventId = object["eventId"] as? String
            else { return nil }
            (self.date, self.state, self.eventId) = (date, state, eventId)
        }
        var description: String { "\(state) at \(date - PostgresClusterTests.diveStart) s" }
    }

    /// The samples of one query's answers, in order; throws when the last answer is not a clean final one.
    static func samples(_ answers: [MQTTMessage]) throws -> [RecordedAccelerometerSample] {
        let objects = answers.map(RecorderRequester.object)
        guard let final = objects.last, final["final"] as? Bool == true, final["error"] == nil else {
            throw TestFailure("no clean final answer: \(objects.last ?? [:])")
        }
        return try RecorderHistory.samples(of: answers)
    }

    /// The sum of `name` over the last metrics each of `names` published after message `from`.
    /// Waits up to 30 s until the broker's log shows `client` subscribing to `filter` after its
    /// first `afterLine` lines ("<time>: <client id> <qos> <filter>").
    static func waitForSubscription(_ broker: TestBroker, client: String, filter: String, afterLine: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if broker.log.split(separator: "\n").dropFirst(afterLine).contains(where: { $0.contains(": \(client) ") && $0.hasSuffix(" " + filter) }) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("\(client) did not subscribe to \(filter) within 30 s of the kill")
    }

    static func metricSum(_ messages: [MQTTMessage], from: Int, _ names: [String], _ name: String, labels: [String: String] = [:]) -> [Double] {
        let recent = Array(messages[min(from, messages.count)...])
        return names.map { ClusterHarness.metric(recent, $0, name, labels: labels) ?? 0 }
    }

    @Test("kill -9 of the owner of a diver and a recording watch, then its return: the whole history from any instance, one dive summary, no regressed depth state")
    func killAndReturnOnSharedStore() async throws {
        let storeSettings = try await TestPostgres.makeDatabase()
        let storeURL = "postgres://\(storeSettings.user)@\(storeSettings.host):\(storeSettings.port)/\(storeSettings.database)?sslmode=disable"

        let broker = try await TestBroker.started()
        let scenario = DiveScenario.deepDive()
        let diver = scenario.deviceId
        let frames = scenario.frames(startDate: Self.diveStart)
        let names = ["gw-a", "gw-b", "gw-c"]
        let victim = try #require(ClusterHarness.owner(of: diver, among: names))
        // The recording watch: the first id the diver's owner owns too.
        let recorder = try #require((0..<1000).map { "rec-watch-\($0)" }.first { ClusterHarness.owner(of: $0, among: names) == victim })
        let survivors = names.filter { $0 != victim }
        let heirs = [diver, recorder].map { ClusterHarness.owner(of: $0, among: survivors)! }

        let (observer, collector) = try await TestClients.observer(
            broker, subscribedTo: ["gateway/\(diver)/submersion/#", "gateway/+/availability", "gateway/instances/+/metrics", "gateway/status"])

        let data = Dictionary(uniqueKeysWithValues: names.map { ($0, broker.directory.appendingPathComponent("data-\($0)")) })
        var gateways = try Dictionary(
            uniqueKeysWithValues: names.map { ($0, try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments($0, store: storeURL), dataDirectory: data[$0])) })
        for name in names { try await gateways[name]!.waitUntilSubscribed() }
        try await ClusterHarness.waitLive(collector, names, count: 3)

        // Both devices say hello and wait for their availability (published after the owner's SUBACK).
        let diverClient = try await TestClients.connected(try TestClients.configuration(broker))
        let recorderClient = try await TestClients.connected(try TestClients.configuration(broker))
        let helloIndex = try #require(frames.firstIndex { $0.topic().hasSuffix("/hello") })
        try await Self.play(frames[...helloIndex].map { Send(client: diverClient, message: MQTTMessage(topic: $0.topic(), payload: $0.payload, qos: .atLeastOnce, retain: $0.retain), chunk: nil) }[...])
        try await recorderClient.publish(MQTTMessage(topic: "wearables/\(recorder)/hello", string: Self.hello, qos: .atLeastOnce, retain: true))
        try await collector.wait(timeout: 30, "both devices' availability") { messages in
            [diver, recorder].allSatisfy { device in messages.contains { $0.topic == "gateway/\(device)/availability" } }
        }

        // The rest of the dive with the uploads spread over it, one every `every` dive frames.
        let diveFrames = frames[(helloIndex + 1)...]
        let every = diveFrames.count / (Self.chunkCount + 1)
        var schedule: [Send] = []
        for (offset, frame) in diveFrames.enumerated() {
            schedule.append(Send(client: diverClient, message: MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain), chunk: nil))
            let chunk = (offset + 1) / every - 1
            if (offset + 1) % every == 0, chunk < Self.chunkCount {
                var writer = JSONWriter()
                Self.chunks[chunk].write(to: &writer)
                schedule.append(Send(client: recorderClient, message: MQTTMessage(topic: "wearables/\(recorder)/recorder/accelerometer", payload: writer.bytes, qos: .atLeastOnce), chunk: chunk))
            }
        }
        #expect(schedule.filter { $0.chunk != nil }.count == Self.chunkCount)

        // 1. Up to 150 s of dive time: at the bottom (30 m), in submergedDeep, uploads under way.
        let killDiveTime = scenario.submergeTime + 150
        let killFrame = try #require(diveFrames.firstIndex { $0.time >= killDiveTime })
        var killAt = try #require(schedule.firstIndex { $0.message.topic == frames[killFrame].topic() && $0.message.payload == frames[killFrame].payload })
        let chunksBefore = schedule[..<killAt].filter { $0.chunk != nil }.count
        #expect(chunksBefore > 1 && chunksBefore < Self.chunkCount, "the kill falls mid-upload")
        let lastUpload = try #require(schedule[..<killAt].lastIndex { $0.chunk != nil })
        try await Self.play(schedule[..<lastUpload])
        @Sendable func accepted(_ messages: [MQTTMessage]) -> Double {
            ClusterHarness.metric(messages, victim, "gateway_frames_accepted_total", labels: ["stream": "recorder/accelerometer"]) ?? 0
        }
        try await collector.wait(timeout: 30, "\(victim) accepted the uploads before the last") { accepted($0) >= Double(chunksBefore - 1) }
        // The last upload before the kill is caught mid-write: the recorder table is locked in
        // PostgreSQL, so the owner's insert waits past its store deadline and the chunk stays
        // held with its journal record (the return must replay it into the store). The kill
        // comes once the owner accepted that upload (a chunk in flight at the instant of a kill
        // dies with the process; docs/scale-out.md), while the diver streams: its journal then
        // also holds the diver's frames its last snapshot does not cover.
        var lock: TestTableLock?
        var killedAtLogLine = 0
        lock = try await TestTableLock.acquire(storeSettings, table: "recorded_sample")
        // 2. kill -9 of the owner of both (the lock is let go on any failure on the way: its
        //    connection must be closed); the heirs subscribe the devices (the broker's log shows
        //    it), the devices go on to the end.
        var plannedKill = killAt
        var deferred: [Send] = []
        do {
            try await Self.play(schedule[lastUpload..<killAt])
            let caughtMidWrite: @Sendable ([MQTTMessage]) -> Bool = { [withLock = lock != nil] messages in
                accepted(messages) >= Double(chunksBefore)
                    && (!withLock || ClusterHarness.metric(messages, victim, "gateway_recorder_chunks_held") ?? 0 >= 1)
            }
            plannedKill = killAt
            while !caughtMidWrite(collector.messages) {
                guard killAt - plannedKill < Int(30 * Self.rate) else {
                    throw TestFailure("\(victim) did not accept (and hold, the store locked) the upload sent before the kill within 30 s")
                }
                // Only the diver goes on meanwhile: an upload falling due waits for after the kill.
                if schedule[killAt].chunk != nil {
                    deferred.append(schedule[killAt])
                } else {
                    try await Self.play(schedule[killAt...killAt])
                }
                killAt += 1
            }
            gateways[victim]!.signal(SIGKILL)
            _ = try await gateways[victim]!.waitForExit(timeout: 10)
            killedAtLogLine = broker.log.split(separator: "\n").count
        } catch {
            _ = try? await lock?.release(terminatingWaiters: false)
            throw error
        }
        let endedWaiters = try await lock?.release(terminatingWaiters: true) ?? 0
        let deepBeforeKill = collector.messages.contains { $0.topic.hasSuffix("/depth-state") && PublishedDepthState($0)?.state == "submergedDeep" }
        #expect(deepBeforeKill, "the owner published submergedDeep before it was killed")

        // Subscribed after the kill: an heir may have subscribed the device before (a warm-up
        // while the partitions settled at start), and frames sent before its take-over reach
        // only the dead instance's session.
        for (device, heir) in zip([diver, recorder], heirs) {
            do {
                try await Self.waitForSubscription(broker, client: gateways[heir]!.subscriberClientID, filter: "wearables/\(device)/#", afterLine: killedAtLogLine)
            } catch {
                // What the survivors (and the stand-in one of them runs) did since the kill.
                let logs = survivors.map { name in "\(name):\n" + gateways[name]!.log.split(separator: "\n").suffix(80).joined(separator: "\n") }
                Issue.record("the heirs' take-over: \(logs.joined(separator: "\n---\n"))")
                throw error
            }
        }
        try await Self.play(deferred[...])
        try await Self.play(schedule[killAt...])
        try await collector.wait(timeout: 60, "the dive summary") { messages in messages.contains { $0.topic == "gateway/\(diver)/submersion/dive" } }
        // The dead instance's stand-in (run by the survivor that adopted it, its series in that
        // survivor's metrics under the dead name) processes what reached its session until it
        // has handed over.
        try await collector.wait(timeout: 30, "the survivors (and the stand-in) accepted every upload after the kill") { messages in
            let labels = ["stream": "recorder/accelerometer"]
            return Self.metricSum(messages, from: 0, survivors, "gateway_frames_accepted_total", labels: labels).reduce(0, +)
                + ClusterHarness.standInMetric(messages, of: victim, adopters: survivors, "gateway_frames_accepted_total", labels: labels)
                >= Double(Self.chunkCount - chunksBefore)
        }

        // A query while two instances are alive: one of them answers (once), nothing repeated.
        let requester = try await RecorderRequester.connect(broker)
        let query = #"{"from":\#(Self.historyStart - 60),"to":\#(Self.historyStart + 3600)}"#
        let expected = Self.chunks.flatMap(\.samples)
        let whileTwo = try Self.samples(try await requester.ask(recorder, query, correlation: "two-alive"))
        #expect(Set(whileTwo.map(\.startDate)).count == whileTwo.count, "no sample twice in the answer while \(survivors) run")
        #expect(Set(whileTwo.map(\.startDate)).isSubset(of: Set(expected.map(\.startDate))))

        // 3. The killed instance comes back with its name and data directory.
        let latestBefore = try #require(collector.messages.filter { $0.topic == "gateway/\(diver)/submersion/depth-state" }.compactMap(PublishedDepthState.init).max { $0.date < $1.date })
        let restartMark = collector.messages.count
        gateways[victim] = try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments(victim, store: storeURL), dataDirectory: data[victim])
        try await collector.wait(timeout: 30, "the partitions settled over the three instances again") { messages in
            Array(messages[restartMark...]).contains { $0.topic == "gateway/instances/\(victim)/metrics" }
        }
        try await ClusterHarness.waitLive(collector, names, count: 3)
        let replayed = Self.metricSum(collector.messages, from: restartMark, [victim], "gateway_journal_replayed_total")[0]
        let superseded = Self.metricSum(collector.messages, from: restartMark, [victim], "gateway_cluster_frames_not_owned_total")[0]
        #expect(replayed > 0, "the returning instance's journal replayed nothing: its return proved nothing")

        // (a) The whole history, from any instance: the first complete answer is awaited (the
        //     returning instance may still be storing what its journal replayed), then six more
        //     queries, spread by the shared subscription over the three instances, each exact.
        let deadline = ContinuousClock.now + .seconds(60)
        var asked = 1  // the query while two instances were alive
        var first: [RecordedAccelerometerSample] = []
        while true {
            first = try Self.samples(try await requester.ask(recorder, query, correlation: "whole-\(asked)"))
            asked += 1
            guard first.count < expected.count, ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(250))  // a poll's pace: the condition is the answer itself
        }
        for round in 0..<6 {
            let answer = try Self.samples(try await requester.ask(recorder, query, correlation: "round-\(round)"))
            asked += 1
            #expect(answer.count == expected.count, "round \(round): \(answer.count) samples of \(expected.count), every sample sent, once")
            #expect(answer == expected, "round \(round): exactly the samples sent, in order (first difference at \(Array(zip(answer, expected)).firstIndex { $0.0 != $0.1 } ?? min(answer.count, expected.count)))")
        }
        // Per instance, from its published metrics (the returning one counts from its return, and
        // every query was asked after it).
        @Sendable func answered(_ messages: [MQTTMessage]) -> [Double] {
            Self.metricSum(messages, from: restartMark, names, "gateway_recorder_queries_total", labels: ["outcome": "answered"])
        }
        let counted = try await collector.wait(timeout: 30, "every query's answer counted") { [asked] in answered($0).reduce(0, +) >= Double(asked) }
        let answeredByEach = answered(counted)
        #expect(answeredByEach.reduce(0, +) == Double(asked), "each query answered by exactly one instance: \(zip(names, answeredByEach).map { "\($0): \($1)" })")
        #expect(answeredByEach.allSatisfy { $0 >= 1 }, "every instance answered queries: \(zip(names, answeredByEach).map { "\($0): \($1)" })")

        // Every instance stops gracefully; its last message (the fleet status offline) reaching the
        // observer means everything it published did.
        try await ClusterHarness.stop(Array(gateways.values), collector: collector)
        let messages = collector.messages

        // (b) One dive summary with the real start and maximum depth.
        let dives = messages.filter { $0.topic == "gateway/\(diver)/submersion/dive" }
        #expect(dives.count == 1, "exactly one dive summary across the instances: \(dives.map(\.payloadString))")
        let dive = RecorderRequester.object(try #require(dives.first))
        let startDate = try #require((dive["startDate"] as? NSNumber)?.doubleValue)
        let maxDepth = try #require((dive["maxDepth"] as? NSNumber)?.doubleValue)
        #expect(abs(startDate - (Self.diveStart + scenario.submergeTime)) < 0.001, "the dive began at the killed owner: \(startDate - Self.diveStart) s")
        #expect(abs(maxDepth - scenario.reportedMaxDepth()) < 1e-6, "\(maxDepth) m, expected \(scenario.reportedMaxDepth()) m")

        // (c) No regressed depth state after the return, and the broker retains the final one.
        let finalState = try #require(scenario.expectedDepthStates().last)
        #expect(latestBefore.state == finalState.name, "the dive ended in \(finalState.name) before the return: \(latestBefore)")
        let afterReturn = messages[restartMark...].filter { $0.topic == "gateway/\(diver)/submersion/depth-state" }.compactMap(PublishedDepthState.init)
        let regressed = afterReturn.filter { $0.date < latestBefore.date }
        #expect(regressed.isEmpty, "depth states older than the latest (\(latestBefore)) published after \(victim) returned: \(regressed)")
        let (reader, retainedCollector) = try await TestClients.observer(broker, subscribedTo: ["gateway/\(diver)/submersion/depth-state"])
        let retained = try await retainedCollector.wait(timeout: 10, "the retained depth state") { !$0.isEmpty }.first.flatMap(PublishedDepthState.init)
        #expect(retained?.eventId == latestBefore.eventId, "the broker retains the dive's final state \(latestBefore), not \(retained.map(String.init(describing:)) ?? "nothing")")

        print(
            "postgres cluster: \(victim) owned \(diver) and \(recorder), killed at \(Int(killDiveTime - scenario.submergeTime)) s of dive time (+\(killAt - plannedKill) frames waiting for the upload's acceptance, \(deferred.count) upload(s) deferred) after \(chunksBefore) of \(Self.chunkCount) uploads, the last held (store locked; \(endedWaiters) waiting sessions ended); heirs \(heirs); returned replaying \(Int(replayed)) journal frames (\(Int(superseded)) not applied: held elsewhere by then); \(asked) queries answered by \(zip(names, answeredByEach).map { "\($0) \(Int($1))" }) (\(first.count) of \(expected.count) samples in the awaited answer); \(dives.count) dive summary, start \(startDate - Self.diveStart) s, max \(maxDepth) m; \(afterReturn.count) depth states after the return, \(regressed.count) regressed; retained \(retained.map(String.init(describing:)) ?? "none")"
        )
        await reader.shutdown()
        await requester.shutdown()
        await diverClient.shutdown()
        await recorderClient.shutdown()
        await observer.shutdown()
    }
}
