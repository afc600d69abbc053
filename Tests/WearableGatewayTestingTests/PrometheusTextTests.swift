import MQTTTransport
import Prometheus
import Testing
import WearableGatewayTesting

@Suite("Reading the gateway's published metrics")
struct PrometheusTextTests {
    static let exposition = """
        # TYPE gateway_frames_accepted_total counter
        gateway_frames_accepted_total{stream="altimeter"} 3
        gateway_frames_accepted_total{stream="batched/accelerometer"} 4
        gateway_journal_live_records 0
        """

    @Test("sum adds every series of a name whose labels include the asked ones")
    func sums() {
        let text = PrometheusText(text: Self.exposition)
        #expect(text.sum("gateway_frames_accepted_total") == 7)
        #expect(text.sum("gateway_frames_accepted_total", labels: ["stream": "altimeter"]) == 3)
        #expect(text.sum("gateway_frames_accepted_total", labels: ["stream": "motion"]) == 0)
        #expect(text.sum("gateway_frames_accepted") == 0, "a prefix of a name is another name")
    }

    @Test("latest reads the last message on the metrics topic, skipping other topics; nil before the first")
    func latest() {
        let older = MQTTMessage(topic: "gateway/metrics", string: "gateway_journal_live_records 5\n")
        let newer = MQTTMessage(topic: "gateway/metrics", string: Self.exposition)
        let other = MQTTMessage(topic: "gateway/w-1/swing", string: "gateway_journal_live_records 9\n")
        #expect(PrometheusText.latest(in: []) == nil)
        #expect(PrometheusText.latest(in: [other]) == nil)
        #expect(PrometheusText.latest(in: [older, newer, other])?.sum("gateway_journal_live_records") == 0)
        #expect(PrometheusText.latest(in: [newer, older])?.sum("gateway_journal_live_records") == 5)
        let instance = MQTTMessage(topic: "gateway/instances/gw-a/metrics", string: "gateway_journal_live_records 2\n")
        #expect(PrometheusText.latest(in: [older, instance], topic: "gateway/instances/gw-a/metrics")?.sum("gateway_journal_live_records") == 2)
    }

    /// Label values that break a reader splitting on `,`, `=` or `"`.
    static let awkwardValues = [
        "a,b", #"say "hi""#, #"back\slash"#, "line\nfeed", "brace}{", "x=y", "trailing\\", "", "ünïcode ✓",
    ]

    @Test("every awkward label value comes back as swift-prometheus recorded it, with the series' value")
    func readsTheRegistrysEscapes() throws {
        let registry = PrometheusCollectorRegistry()
        for (index, value) in Self.awkwardValues.enumerated() {
            let awkward = MetricNameDescriptor(metricName: "awkward", unitName: "total", helpText: "Counts awkward things.")
            registry.makeCounter(descriptor: awkward, labels: [("value", value), ("index", "\(index)")]).increment(by: Int64(index + 1))
        }
        registry.makeGauge(descriptor: MetricNameDescriptor(metricName: "plain", unitName: "", helpText: #"A help with a backslash \ in it."#), labels: [])
            .set(2.5)
        let sizes = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(metricName: "sizes", unitName: "", helpText: "Sizes."), labels: [("k", "a,\"b")], buckets: [1, 10])
        sizes.record(Double(5))
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let text = PrometheusText(text: String(decoding: buffer, as: UTF8.self))
        #expect(text.malformedLines == 0, "\(text.text)")
        for (index, value) in Self.awkwardValues.enumerated() {
            #expect(text.sum("awkward_total", labels: ["value": value]) == Double(index + 1), "\(value.debugDescription)")
        }
        #expect(text.sum("awkward_total") == Double((1...Self.awkwardValues.count).reduce(0, +)))
        #expect(text.help["awkward_total"] == "Counts awkward things.")
        #expect(text.help["plain"] == #"A help with a backslash \ in it."#)
        #expect(text.types["awkward_total"] == "counter" && text.types["plain"] == "gauge" && text.types["sizes"] == "histogram")
        #expect(text.sum("plain") == 2.5)
        #expect(text.sum("sizes_bucket", labels: ["k": "a,\"b", "le": "10.0"]) == 1)
        #expect(text.sum("sizes_bucket", labels: ["k": "a,\"b", "le": "+Inf"]) == 1)
        #expect(text.families == ["awkward_total", "plain", "sizes"])
    }

    @Test("special values, timestamps and help escapes; malformed sample lines are counted, not read")
    func valuesAndMalformedLines() {
        let text = PrometheusText(
            text: #"""
                # HELP up Whether the target answers.\nSecond line, a \\ backslash.
                # TYPE up gauge
                up{job="a"} +Inf 1700000000000
                up{job="b"} -Inf
                up{job="c"} NaN
                up{job="d",} 1e3
                up{job="unterminated} 1
                up{job="e" x="y"} 2
                broken_without_value
                """#)
        #expect(text.help["up"] == "Whether the target answers.\nSecond line, a \\ backslash.")
        #expect(text.sum("up", labels: ["job": "a"]) == .infinity)
        #expect(text.sum("up", labels: ["job": "b"]) == -.infinity)
        #expect(text.sum("up", labels: ["job": "c"]).isNaN)
        #expect(text.sum("up", labels: ["job": "d"]) == 1_000)
        #expect(text.malformedLines == 3)
        #expect(text.samples.count == 4)
    }
}
