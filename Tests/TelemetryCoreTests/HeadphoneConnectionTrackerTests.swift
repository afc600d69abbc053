import Testing

@testable import TelemetryCore

/// Every transition and reason of the headphone connection state machine, its debouncing,
/// stale-event ordering and versions.
@Suite struct HeadphoneConnectionTrackerTests {
    private func tracker(timeout: Double = 2, resumeSpan: Double = 0.5) -> HeadphoneConnectionTracker {
        HeadphoneConnectionTracker(streamTimeout: timeout, resumeSpan: resumeSpan)
    }

    /// `#require` for results of mutating calls (the macro cannot take them inline).
    private func required<Value>(_ value: Value?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Value {
        try #require(value, sourceLocation: sourceLocation)
    }

    private func event(_ kind: HeadphoneConnectionEvent.Kind, _ date: Double) -> HeadphoneConnectionEvent {
        HeadphoneConnectionEvent(kind: kind, date: date)
    }

    /// Feeds 25 Hz samples from `start` (inclusive) to `end` (exclusive), all received at `receivedAt`.
    private func samples(
        _ tracker: inout HeadphoneConnectionTracker, from start: Double, to end: Double, location: SensorLocation = .headphoneLeft, receivedAt: Double
    ) -> [HeadphoneConnectionTransition] {
        var transitions: [HeadphoneConnectionTransition] = []
        var index = 0
        while start + Double(index) * 0.04 < end - 1e-9 {
            let timestamp = start + Double(index) * 0.04
            if let transition = tracker.receiveSample(timestamp: timestamp, sensorLocation: location, receivedAt: receivedAt) {
                transitions.append(transition)
            }
            index += 1
        }
        return transitions
    }

    @Test("a connect event connects once; a repeated one publishes nothing")
    func connectEvent() throws {
        var tracker = tracker()
        #expect(tracker.state == nil)
        let transition = try required(tracker.receive(event(.connected, 100), receivedAt: 1_000))
        #expect(transition.state == .connected)
        #expect(transition.reason == .event)
        #expect(transition.date == 100)
        #expect(transition.timestamp == nil)
        #expect(tracker.receive(event(.connected, 101), receivedAt: 1_001) == nil)
        #expect(tracker.isConnected)
    }

    @Test("a disconnect that follows motion from a bud is earRemoved")
    func earRemoved() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        #expect(samples(&tracker, from: 50, to: 51, receivedAt: 1_000.5).isEmpty)
        let transition = try required(tracker.receive(event(.disconnected, 102), receivedAt: 1_001))
        #expect(transition.state == .disconnected)
        #expect(transition.reason == .earRemoved)
        #expect(transition.date == 102)
    }

    @Test("a disconnect without motion since the connect is event", arguments: [false, true])
    func disconnectWithoutMotion(withDefaultLocationSamples: Bool) throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        if withDefaultLocationSamples {
            // Samples that name no bud do not make it an ear removal.
            _ = samples(&tracker, from: 50, to: 51, location: .default, receivedAt: 1_000.5)
        }
        let transition = try required(tracker.receive(event(.disconnected, 102), receivedAt: 1_001))
        #expect(transition.reason == .event)
    }

    @Test("a disconnect as the first signal publishes disconnected (event); a second one nothing")
    func firstSignalDisconnect() throws {
        var tracker = tracker()
        let transition = try required(tracker.receive(event(.disconnected, 100), receivedAt: 1_000))
        #expect(transition.state == .disconnected)
        #expect(transition.reason == .event)
        #expect(tracker.receive(event(.disconnected, 101), receivedAt: 1_001) == nil)
    }

    @Test("silence longer than the timeout on the gateway clock is streamTimeout")
    func streamTimeout() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        _ = samples(&tracker, from: 50, to: 51, receivedAt: 1_001)
        #expect(tracker.tick(now: 1_002.5) == nil)
        #expect(tracker.tick(now: 1_003) == nil, "exactly the timeout is not longer than it")
        let transition = try required(tracker.tick(now: 1_003.5))
        #expect(transition.state == .disconnected)
        #expect(transition.reason == .streamTimeout)
        #expect(transition.date == 1_003, "the moment the silence passed the limit, not the tick")
        #expect(abs((transition.timestamp ?? 0) - 50.96) < 1e-9, "the last sample before the silence")
        #expect(tracker.tick(now: 1_010) == nil)
    }

    @Test("a connect with no motion at all times out from the connect's arrival")
    func timeoutWithoutMotion() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        #expect(tracker.tick(now: 1_001.9) == nil)
        let transition = try required(tracker.tick(now: 1_002.1))
        #expect(transition.reason == .streamTimeout)
        #expect(transition.timestamp == nil)
    }

    @Test("the worker's final flush (greatestFiniteMagnitude) is not silence")
    func drainFlush() {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        #expect(tracker.tick(now: .greatestFiniteMagnitude) == nil)
        #expect(tracker.isConnected)
    }

    @Test("motion resuming after a timeout reconnects once it has lasted resumeSpan")
    func resumption() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        _ = samples(&tracker, from: 50, to: 51, receivedAt: 1_000)
        _ = try required(tracker.tick(now: 1_003))
        // 50 s later in sample time; the 13th sample is 0.48 s after the first, the 14th 0.52 s.
        let transitions = samples(&tracker, from: 60, to: 61, receivedAt: 1_010)
        #expect(transitions.count == 1)
        let transition = try #require(transitions.first)
        #expect(transition.state == .connected)
        #expect(transition.reason == .streamResumed)
        #expect(abs((transition.timestamp ?? 0) - 60.52) < 1e-9)
        #expect(transition.date == 1_010, "a resumption is dated by its arrival (gateway clock)")
        #expect(tracker.isConnected)
    }

    @Test("one late sample, or a late batch shorter than resumeSpan, does not flap the state")
    func debounce() {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        _ = samples(&tracker, from: 50, to: 51, receivedAt: 1_000)
        _ = tracker.receive(event(.disconnected, 101), receivedAt: 1_001)
        // The last batch overtaken by the disconnect: 5 samples = 0.16 s.
        #expect(samples(&tracker, from: 51, to: 51.2, receivedAt: 1_001.01).isEmpty)
        #expect(tracker.state == .disconnected)
        #expect(tracker.tick(now: 1_010) == nil)
        // A single stray sample much later, then another one after a gap: the gap restarts the span.
        #expect(tracker.receiveSample(timestamp: 70, sensorLocation: .headphoneLeft, receivedAt: 1_020) == nil)
        #expect(tracker.receiveSample(timestamp: 73, sensorLocation: .headphoneLeft, receivedAt: 1_020.1) == nil, "3 s of sample time apart")
        #expect(tracker.receiveSample(timestamp: 73.04, sensorLocation: .headphoneLeft, receivedAt: 1_023) == nil, "3 s of gateway time apart")
        #expect(tracker.state == .disconnected)
        #expect(tracker.reason == .earRemoved)
    }

    @Test("resumeSpan 0 reconnects on the first sample; first motion of an unknown device too")
    func immediateResumption() throws {
        var tracker = tracker(resumeSpan: 0)
        let transition = try required(tracker.receiveSample(timestamp: 10, sensorLocation: .headphoneRight, receivedAt: 1_000))
        #expect(transition.state == .connected)
        #expect(transition.reason == .streamResumed)
        #expect(transition.timestamp == 10)
        // Motion streamed from a bud: a disconnect now is an ear removal.
        #expect(tracker.receive(event(.disconnected, 100), receivedAt: 1_001)?.reason == .earRemoved)
    }

    @Test("the bridge going offline disconnects with deviceOffline; online changes nothing")
    func deviceOffline() throws {
        var tracker = tracker()
        #expect(tracker.receive(DeviceStatus(state: .offline), receivedAt: 999) == nil, "a device never seen with headphones is not tracked")
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        #expect(tracker.receive(DeviceStatus(state: .online, date: 100.5), receivedAt: 1_000.5) == nil)
        let transition = try required(tracker.receive(DeviceStatus(state: .offline), receivedAt: 1_001))
        #expect(transition.state == .disconnected)
        #expect(transition.reason == .deviceOffline)
        #expect(transition.date == 1_001, "a will has no date: the arrival time stands in")
        #expect(tracker.receive(DeviceStatus(state: .offline, date: 102), receivedAt: 1_002) == nil)
    }

    @Test("while disconnected a more definitive reason is published, a weaker one is not")
    func reasonUpgrades() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        _ = try required(tracker.tick(now: 1_003))
        let confirmed = try required(tracker.receive(event(.disconnected, 104), receivedAt: 1_004))
        #expect(confirmed.state == .disconnected)
        #expect(confirmed.reason == .event, "after a timeout the disconnect does not directly follow motion")
        let offline = try required(tracker.receive(DeviceStatus(state: .offline, date: 105), receivedAt: 1_005))
        #expect(offline.reason == .deviceOffline)
        #expect(tracker.receive(event(.disconnected, 106), receivedAt: 1_006) == nil, "the bridge's own report is weaker than its absence")
        #expect(tracker.tick(now: 1_100) == nil)
    }

    @Test("stale events that arrive after newer ones are ignored")
    func staleEvents() throws {
        var tracker = tracker()
        _ = tracker.receive(event(.connected, 100), receivedAt: 1_000)
        _ = tracker.receive(event(.disconnected, 110), receivedAt: 1_001)
        #expect(tracker.receive(event(.connected, 105), receivedAt: 1_002) == nil, "older than the disconnect")
        #expect(tracker.state == .disconnected)
        #expect(tracker.receive(event(.connected, 110), receivedAt: 1_003)?.state == .connected, "the same date is not older")
        #expect(tracker.receive(DeviceStatus(state: .offline, date: 109), receivedAt: 1_004) == nil, "a dated status older than the newest event")
        #expect(tracker.isConnected)
        // A will (no date) applies as it arrives and does not move the mark.
        #expect(tracker.receive(DeviceStatus(state: .offline), receivedAt: 1_005)?.reason == .deviceOffline)
        #expect(tracker.latestSignalDate == 110)
        #expect(tracker.receive(event(.connected, 111), receivedAt: 1_006)?.reason == .event)
    }

    @Test("versions increase strictly, from the gateway clock in ms")
    func versions() throws {
        var tracker = tracker(resumeSpan: 0)
        var versions: [UInt64] = []
        versions.append(try required(tracker.receive(event(.connected, 100), receivedAt: 1_000)).version)
        versions.append(try required(tracker.receive(event(.disconnected, 101), receivedAt: 1_000)).version)
        versions.append(try required(tracker.receiveSample(timestamp: 5, sensorLocation: .headphoneLeft, receivedAt: 1_000)).version)
        versions.append(try required(tracker.tick(now: 1_002.5)).version)
        #expect(versions == [1_000_000, 1_000_001, 1_000_002, 1_002_500])
        #expect(tracker.version == 1_002_500)
        // A gateway clock that steps back still gives a larger version.
        #expect(try required(tracker.receive(event(.connected, 102), receivedAt: 500)).version == 1_002_501)
    }

    @Test("event ids derive from the input, not from the version or the arrival time")
    func inputKeys() throws {
        var first = tracker()
        var second = tracker()
        _ = first.receive(event(.connected, 1), receivedAt: 1)
        let a = try required(first.receive(event(.disconnected, 100), receivedAt: 1_000))
        let b = try required(second.receive(event(.disconnected, 100), receivedAt: 2_000))
        #expect(a.inputKey == b.inputKey)
        #expect(a.version != b.version)
    }
}
