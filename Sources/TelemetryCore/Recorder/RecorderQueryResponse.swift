/// The payloads of a recorder query's answer, all sent on the request's response topic with
/// its correlation data, in order: zero or more chunks (`"final": false`, `chunk` counting from
/// 0), then one final marker (`"final": true`, with the chunk and item counts) — or, instead, a
/// single final error.
///
/// ```json
/// {"deviceId":"watch-1","kind":"accelerometer","from":…,"to":…,"chunk":0,"final":false,"samples":[…]}
/// {"deviceId":"watch-1","kind":"accelerometer","from":…,"to":…,"final":true,"chunks":1,"count":1000}
/// {"deviceId":"watch-1","final":true,"error":{"code":"rangeTooLong","detail":"…"}}
/// ```
public enum RecorderQueryResponse {
    /// A chunk of stored samples.
    /// - Parameters:
    ///   - query: the query answered.
    ///   - index: the chunk's position, from 0.
    ///   - samples: the samples, in (startDate, identifier, timestamp) order.
    /// - Returns: the JSON payload.
    public static func samplesChunk(_ query: RecorderQuery, index: Int, samples: [StoredRecorderSample]) -> [UInt8] {
        chunk(query, index: index, capacity: 64 + samples.count * 120) { writer in
            writer.arrayField("samples", samples)
        }
    }

    /// A chunk of any other items (tremor results), written by `items` as `"name": [...]`.
    /// - Parameters:
    ///   - query: the query answered.
    ///   - index: the chunk's position, from 0.
    ///   - items: writes the chunk's member, e.g. `"results": […]`.
    /// - Returns: the JSON payload.
    public static func chunk(_ query: RecorderQuery, index: Int, capacity: Int = 4096, items: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.object { writer in
            header(query, into: &writer)
            writer.field("chunk", index)
            writer.field("final", false)
            items(&writer)
        }
        return writer.bytes
    }

    /// The final marker after the last chunk.
    /// - Parameters:
    ///   - query: the query answered.
    ///   - chunks: how many chunks were sent.
    ///   - count: how many samples (or results) they held.
    /// - Returns: the JSON payload.
    public static func final(_ query: RecorderQuery, chunks: Int, count: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 160)
        writer.object { writer in
            header(query, into: &writer)
            writer.field("final", true)
            writer.field("chunks", chunks)
            writer.field("count", count)
        }
        return writer.bytes
    }

    /// The single final answer of a query that cannot be answered.
    /// - Parameters:
    ///   - device: the device the request named.
    ///   - error: why it is not answered.
    /// - Returns: the JSON payload.
    public static func error(device: DeviceID, _ error: RecorderQueryError) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.object { writer in
            writer.field("deviceId", device.rawValue)
            writer.field("final", true)
            writer.key("error")
            writer.object { writer in
                writer.field("code", error.code.rawValue)
                writer.field("detail", error.detail)
            }
        }
        return writer.bytes
    }

    private static func header(_ query: RecorderQuery, into writer: inout JSONWriter) {
        writer.field("deviceId", query.device.rawValue)
        writer.field("kind", query.kind.name)
        writer.field("from", query.from)
        writer.field("to", query.to)
    }
}
