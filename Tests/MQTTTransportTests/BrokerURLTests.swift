import MQTTTransport
import Testing

@Suite("Broker URLs")
struct BrokerURLTests {
    @Test("parses schemes, hosts and default ports", arguments: [
        ("mqtt://127.0.0.1:1883", "127.0.0.1", 1883, false),
        ("mqtt://broker.example", "broker.example", 1883, false),
        ("mqtts://broker.example", "broker.example", 8883, true),
        ("MQTTS://b:9000/", "b", 9000, true),
        ("mqtt://[::1]:1884", "::1", 1884, false),
        ("tcp://h:1", "h", 1, false),
    ])
    func parses(text: String, host: String, port: Int, tls: Bool) throws {
        let url = try BrokerURL(parsing: text)
        #expect(url == BrokerURL(host: host, port: port, usesTLS: tls))
    }

    @Test("rejects what is not a broker URL, saying why", arguments: [
        ("127.0.0.1:1883", "no scheme"),
        ("http://h:80", "unsupported scheme 'http'"),
        ("mqtt://:1883", "no host"),
        ("mqtt://h:0", "port '0'"),
        ("mqtt://h:abc", "port 'abc'"),
        ("mqtt://h:1883/topic", "has a path"),
        ("mqtt://[::1:1883", "unclosed '['"),
    ])
    func rejects(text: String, fragment: String) {
        #expect {
            _ = try BrokerURL(parsing: text)
        } throws: { error in
            (error as? BrokerURL.ParseError)?.description.contains(fragment) == true
        }
    }

    @Test("prints back to a parseable URL")
    func roundTrip() throws {
        for text in ["mqtt://h:1883", "mqtts://[::1]:8883"] {
            #expect(try BrokerURL(parsing: text).description == text)
        }
    }
}
