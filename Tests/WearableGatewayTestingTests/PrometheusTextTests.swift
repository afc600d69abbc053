import MQTTTransport
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
}
