import TelemetryCore
import TelemetrySimulation
import Testing

/// The swing window's compact storage: device motion as 8-byte points (tick offsets from a
/// re-anchored base), the accelerometer as a short ring scanned chunk by chunk plus a record of
/// its gaps. Nothing it stores may change what the detector measures.
@Suite("Swing window compact storage")
struct SwingCompactStorageTests {
    /// Half a tick: the most a stored timestamp may differ from the original.
    static let halfTick = 0.5 / RotationRing.ticksPerSecond

    @Test("timestamps read back within half a tick and re-anchoring changes none of them, at any uptime", arguments: [0.0, 86_400, 40_000_000])
    func reanchoring(uptime: Double) throws {
        var ring = RotationRing(capacity: 800)
        var generator = SplitMix64(seed: 7)
        var time = uptime + 0.123_456_789
        var stored: [(timestamp: Double, rate: Double)] = []
        var anchors: Set<Int64> = []
        // 10 minutes at 200 Hz with jitter: the offsets overflow Int32 every 128 s.
        for _ in 0..<120_000 {
            time += 0.005 + (Double(generator.next() % 1_000) - 500) * 1e-8
            let rate = (Double(generator.next() % 70_000) - 35_000) / 1_000
            let before = ring.count == ring.capacity ? ring[absolute: ring.startIndex + 1] : ring.first
            let appended = ring.append(timestamp: time, rate: rate)
            #expect(appended)
            stored.append((time, rate))
            if anchors.insert(ring.baseTick).inserted, let before, ring.count > 1 {
                // Just re-anchored: the samples held read back exactly as before.
                #expect(ring.first == before)
            }
        }
        #expect(anchors.count >= 5, "re-anchored \(anchors.count - 1) times")
        for index in ring.startIndex..<ring.endIndex {
            let point = ring[absolute: index]
            let original = stored[index]
            #expect(abs(point.timestamp - original.timestamp) <= Self.halfTick + original.timestamp.ulp)
            #expect(abs(point.rate - original.rate) <= abs(original.rate) * 1e-7)
        }
        #expect(ring.lastIndex(atOrBefore: ring[absolute: ring.endIndex - 10].timestamp) == ring.endIndex - 10)
    }

    @Test("a pause longer than the offsets reach drops the older samples; absolute indices go on")
    func longPause() {
        var ring = RotationRing(capacity: 16)
        let accepted = (0..<10).map { ring.append(timestamp: 100 + Double($0) * 0.005, rate: 1) } + [ring.append(timestamp: 100 + 200, rate: 2)]
        #expect(accepted.allSatisfy { $0 })
        #expect(ring.count == 1 && ring.startIndex == 10 && ring.endIndex == 11)
        #expect(ring.first?.timestamp == 300 && ring.first?.rate == 2)
    }

    @Test("a sample not newer by a tick, or without a tick, is refused")
    func refusals() {
        var ring = RotationRing(capacity: 16)
        let answers = [
            ring.append(timestamp: 50, rate: 1),
            ring.append(timestamp: 50, rate: 1),
            ring.append(timestamp: 50 + Self.halfTick / 4, rate: 1),  // rounds to the newest's tick
            ring.append(timestamp: 49.9, rate: 1),
            ring.append(timestamp: .nan, rate: 1),
            ring.append(timestamp: .infinity, rate: 1),
            ring.append(timestamp: 50 + 1 / RotationRing.ticksPerSecond, rate: 1),
        ]
        #expect(answers == [true, false, false, false, false, false, true])
        #expect(ring.count == 2)
    }

    @Test("coverage from the gap record answers as a walk over every sample would", arguments: [UInt64(1), 2, 3])
    func coverageMatchesWalk(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var coverage = StreamCoverage(tolerance: 3.0 / 800)
        var timestamps: [Double] = []
        var time = 1_000.0
        for _ in 0..<4_000 {
            // Mostly 800 Hz, with a gap about every 200 samples (under the gap record's capacity).
            time += generator.next() % 200 == 0 ? 0.004 + Double(generator.next() % 100) * 1e-3 : 1.0 / 800
            timestamps.append(time)
            coverage.extend(to: time)
        }
        for _ in 0..<500 {
            let start = timestamps[0] - 0.01 + Double(generator.next() % 6_000) * 1e-3
            let end = start + Double(generator.next() % 1_500) * 1e-3
            #expect(coverage.covers(from: start, through: end) == Self.walk(timestamps, from: start, through: end, gap: coverage.tolerance), "\(start)…\(end)")
        }
    }

    @Test("forgetting the oldest gap moves the start of coverage past it")
    func forgottenGap() {
        var coverage = StreamCoverage(tolerance: 0.01)
        var time = 0.0
        for _ in 0...StreamCoverage.gapCapacity + 1 {
            time += 1
            coverage.extend(to: time)
            coverage.extend(to: time + 0.005)
        }
        #expect(coverage.start == 2, "the first gap, 0.005 → 2, was forgotten")
        #expect(!coverage.covers(from: 1, through: 1.005))
        #expect(coverage.covers(from: 2, through: 2.005))
    }

    @Test("one long accelerometer batch finds the impacts one-sample batches find, contacts on every chunk boundary")
    func chunkBoundaries() throws {
        let window = BatchAlignmentWindow(configuration: SwingConfiguration())
        let chunk = Double(window.accelerometerChunk) / 800
        // Contacts at, just before and just after successive chunk boundaries (0.3 s apart: past the refractory time).
        let contacts = (1...8).map { 10 + Double($0) * 2 * chunk + [-0.004, 0, 0.0031, -0.012][$0 % 4] }
        let samples = SwingSignals.accelerometer(from: 10, to: 10 + 18 * chunk) { time in
            -1 + contacts.reduce(0) { $0 + SwingSignals.ringDown(at: $1)(time) }
        }
        try #require(samples.count > 4 * window.accelerometerCapacity)
        let whole = Self.impacts([samples])
        #expect(whole.count == contacts.count, "\(whole)")
        #expect(Self.impacts(samples.map { [$0] }) == whole)
        #expect(Self.impacts(stride(from: 0, to: samples.count, by: 97).map { Array(samples[$0..<min(samples.count, $0 + 97)]) }) == whole)
    }

    @Test("a session at a large uptime, past several re-anchorings, measures the same swings")
    func largeUptime() throws {
        // 260 s of idling first: the device-motion offsets overflow twice (every 128 s) before the swings.
        let scenario = SwingScenario(seed: 51, actions: [.idle(seconds: 260)] + SwingAlignmentTests.actions)
        // Whole seconds: the tick grid (2⁻²⁴ s) shifts with the timestamps.
        let shift = 30_000_000.0
        let shifted = scenario.arrivals.map { batch -> SwingScenario.Batch in
            switch batch {
            case .accelerometer(var batch):
                batch.samples = batch.samples.map { var sample = $0; sample.timestamp += shift; return sample }
                return .accelerometer(batch)
            case .deviceMotion(var batch):
                batch.samples = batch.samples.map { var sample = $0; sample.timestamp += shift; return sample }
                return .deviceMotion(batch)
            }
        }
        let reference = SwingEvaluation.detect(scenario)
        let events = SwingEvaluation.detect(shifted)
        try #require(events.count == reference.count && !reference.isEmpty)
        for (event, expected) in zip(events, reference) {
            #expect(abs(event.startTimestamp - shift - expected.startTimestamp) < 1e-6)
            #expect(event.impactTimestamp == expected.impactTimestamp.map { $0 + shift }, "the impact is a sample's own timestamp")
            #expect(abs(event.peakRotationRate - expected.peakRotationRate) < 1e-5 && abs(event.rotationAngle - expected.rotationAngle) < 1e-5)
        }
    }

    /// Impacts found feeding `batches` through the window's chunked append.
    static func impacts(_ batches: [[AccelerometerSample]]) -> [Impact] {
        var window = BatchAlignmentWindow(configuration: SwingConfiguration())
        var detector = ImpactDetector(configuration: SwingConfiguration())
        var found: [Impact] = []
        for batch in batches { _ = detector.append(batch, to: &window) { found.append($0) } }
        return found
    }

    /// Coverage by walking the samples: the rule ``StreamCoverage`` keeps without them.
    static func walk(_ timestamps: [Double], from start: Double, through end: Double, gap: Double) -> Bool {
        guard let first = timestamps.first, let last = timestamps.last, first <= start + gap, last >= end - gap else { return false }
        var index = (timestamps.lastIndex { $0 <= start }) ?? 0
        while index + 1 < timestamps.count {
            if timestamps[index + 1] - timestamps[index] > gap { return false }
            if timestamps[index + 1] >= end { return true }
            index += 1
        }
        return true
    }
}
