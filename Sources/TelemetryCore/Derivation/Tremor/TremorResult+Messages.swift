extension TremorResult {
    /// The event id: a hash of the device, the interval and the number of samples analysed, so the
    /// same minute analysed again from the same data has the same id, and a re-analysis after
    /// late samples arrived has a new one.
    /// - Parameter device: the device.
    public func eventID(device: DeviceID) -> String {
        EventID.make(device.rawValue, TopicScheme.Leaf.tremor.rawValue, String(describing: startDate), String(describing: endDate), String(sampleCount))
    }

    /// Writes the result as one JSON object, the payload of `gateway/{id}/tremor` and the
    /// element of ``responsePayload(_:device:extraFields:)``:
    /// `{"deviceId","eventId","startDate","endDate","unknown","none","slight","mild","moderate",
    /// "strong","dominantFrequency"?,"displacement"?,"windows","voluntaryWindows","samples"}`.
    ///
    /// `dominantFrequency` (Hz) and `displacement` (median peak-to-peak, cm) are left out when no
    /// window shows tremor, as optional fields are throughout the contract.
    /// - Parameters:
    ///   - writer: the writer.
    ///   - device: the device.
    public func write(to writer: inout JSONWriter, device: DeviceID) {
        writer.object {
            $0.field("deviceId", device.rawValue)
            $0.field("eventId", eventID(device: device))
            $0.field("startDate", startDate)
            $0.field("endDate", endDate)
            for severity in TremorSeverity.allCases { $0.field(severity.name, fraction(severity)) }
            $0.field("dominantFrequency", dominantFrequency)
            $0.field("displacement", displacement)
            $0.field("windows", windowCount)
            $0.field("voluntaryWindows", voluntaryWindows)
            $0.field("samples", sampleCount)
        }
    }

    /// The `gateway/{id}/tremor` message: QoS 1, not retained (one per analysed minute).
    /// - Parameters:
    ///   - device: the device.
    ///   - scheme: the topic layout.
    public func message(device: DeviceID, scheme: TopicScheme) -> OutboundMessage {
        var writer = JSONWriter(capacity: 384)
        write(to: &writer, device: device)
        return OutboundMessage(.tremor, of: device, in: scheme, payload: writer.bytes)
    }

    /// A payload carrying several results of one device, e.g. the answer to a date-range request:
    /// `{"deviceId", <extra fields>, "results":[<result object>…]}`, each element written by
    /// ``write(to:device:)``.
    /// - Parameters:
    ///   - results: the results, in the order to report them (oldest first, usually).
    ///   - device: the device.
    ///   - extraFields: writes further members before `results` (e.g. a request id, the range).
    /// - Returns: UTF-8 JSON.
    public static func responsePayload(_ results: [TremorResult], device: DeviceID, extraFields: (inout JSONWriter) -> Void = { _ in }) -> [UInt8] {
        var writer = JSONWriter(capacity: 96 + 384 * results.count)
        writer.object {
            $0.field("deviceId", device.rawValue)
            extraFields(&$0)
            $0.field(
                "results",
                array: { array in
                    for result in results { result.write(to: &array, device: device) }
                })
        }
        return writer.bytes
    }
}
