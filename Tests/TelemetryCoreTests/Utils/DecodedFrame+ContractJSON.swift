import TelemetryCore

extension DecodedFrame {
    /// The frame written back as contract JSON with the project's encoders (``FrameEncoder``).
    var contractJSON: [UInt8] {
        switch self {
        case .hello(let descriptor, let sequence): FrameEncoder.encode(descriptor, sequence: sequence)
        case .status(let status, let sequence): FrameEncoder.encode(status, sequence: sequence)
        case .authorization(let change, let sequence): FrameEncoder.encode(change, sequence: sequence)
        case .workout(let event, let sequence): FrameEncoder.encode(event, sequence: sequence)
        case .headphoneConnection(let event, let sequence): FrameEncoder.encode(event, sequence: sequence)
        case .headphoneMotion(let batch), .motion(let batch), .batchedDeviceMotion(let batch): FrameEncoder.encode(batch)
        case .batchedAccelerometer(let batch): FrameEncoder.encode(batch)
        case .submersionEvent(let event, let sequence): FrameEncoder.encode(event, sequence: sequence)
        case .submersionMeasurement(let measurement, let sequence): FrameEncoder.encode(measurement, sequence: sequence)
        case .submersionTemperature(let temperature, let sequence): FrameEncoder.encode(temperature, sequence: sequence)
        case .pedometerData(let data, let sequence): FrameEncoder.encode(data, sequence: sequence)
        case .pedometerEvent(let event, let sequence): FrameEncoder.encode(event, sequence: sequence)
        case .altimeter(let sample, let sequence): FrameEncoder.encode(sample, sequence: sequence)
        case .recorderAccelerometer(let chunk): FrameEncoder.encode(chunk)
        }
    }
}
