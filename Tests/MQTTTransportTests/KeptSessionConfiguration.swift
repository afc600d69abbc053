import Foundation
import MQTTTransport
import BrokerTestSupport

extension TestClients {
    /// A client configuration for `broker` whose session the broker keeps for 60 s (clean start
    /// off), under a new client id beginning with `prefix`.
    static func keptSession(_ broker: TestBroker, prefix: String) throws -> (id: String, configuration: MQTTClientConfiguration) {
        let id = "\(prefix)-\(UUID().uuidString.prefix(8))"
        var configuration = try TestClients.configuration(broker, id: id)
        configuration.cleanStart = false
        configuration.sessionExpiry = 60
        return (id, configuration)
    }
}
