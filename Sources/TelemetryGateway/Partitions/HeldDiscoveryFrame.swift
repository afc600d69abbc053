import GatewayJournal
import Ownership

/// A discovery frame (hello, status) held until its device's subscription is acknowledged
/// (``PartitionSubscriptions``), with what the router decided for it.
struct HeldDiscoveryFrame: Sendable {
    var record: JournalRecord
    /// Its journal record (nil while warming up: the holder journals it).
    var ticket: JournalTicket?
    /// Its device's role when it arrived: warming, it is processed without publishing.
    var role: DeviceRole
    var bytes: Int { record.payload.count + record.topic.utf8.count }
}
