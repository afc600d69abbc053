import TelemetryCore

/// The fleet view at one moment, taken under the view's lock in O(1) (a copy-on-write copy of
/// its devices) and encoded outside it, so the workers feeding the view never wait for an
/// encode: `{"devices":[{"deviceId":…,"latest":{family: event},"depthHistory":[…],"swings":[…]}]}`,
/// devices sorted by id.
public struct FleetSnapshot: Sendable {
    private let devices: [FleetStore.Device]

    init(devices: [FleetStore.Device]) {
        self.devices = devices
    }

    /// The number of devices in the snapshot.
    public var deviceCount: Int { devices.count }

    /// The whole JSON document at once (tests, small fleets).
    public var json: [UInt8] {
        let order = sortedOrder()
        var next = 0
        var bytes: [UInt8] = []
        repeat { bytes += chunk(from: &next, order: order, bytes: 1 << 20) } while next < order.count
        return bytes
    }

    /// Writes the JSON in pieces of about `chunkBytes` bytes (more when one device is larger),
    /// yielding the executor between pieces: a long answer is interleaved with the other tasks
    /// of the cooperative pool (the workers among them) instead of holding one of its few
    /// threads for the whole encode.
    public func write(chunkBytes: Int = 1 << 18, to emit: ([UInt8]) async throws -> Void) async throws {
        let order = sortedOrder()
        var next = 0
        repeat {
            try await emit(chunk(from: &next, order: order, bytes: chunkBytes))
            await Task.yield()
        } while next < order.count
    }

    /// Device positions by id; sorting indices, not the devices, keeps the copies shared.
    private func sortedOrder() -> [Int] {
        devices.indices.sorted { devices[$0].id < devices[$1].id }
    }

    /// The piece of the document from device `next` (of `order`) on, at least `bytes` long
    /// unless it is the last; advances `next`. The first piece opens the document, the last
    /// closes it.
    private func chunk(from next: inout Int, order: [Int], bytes: Int) -> [UInt8] {
        let first = next == 0
        var writer = JSONWriter(capacity: bytes + (1 << 16))
        while next < order.count, writer.bytes.count < bytes {
            Self.encode(devices[order[next]], into: &writer)
            next += 1
        }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(writer.bytes.count + 16)
        chunk += first ? Array(#"{"devices":["#.utf8) : [UInt8(ascii: ",")]
        chunk += writer.bytes
        if next == order.count { chunk += Array("]}".utf8) }
        return chunk
    }

    /// Writes one device's object; the writer separates consecutive ones.
    private static func encode(_ device: FleetStore.Device, into writer: inout JSONWriter) {
        writer.object {
            $0.field("deviceId", device.id)
            $0.field("latest", object: { latest in
                for (family, payload) in device.latest.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    latest.key(family.rawValue)
                    latest.raw(payload)
                }
            })
            $0.field("depthHistory", array: { history in device.depthHistory.forEach { history.raw($0.payload) } })
            $0.field("swings", array: { history in device.swings.forEach { history.raw($0.payload) } })
        }
    }
}
