import CSimdjson

// The low-rate streams: flat objects whose top-level members the C decoder reports in one call.

extension FrameDecoder {
    /// Decodes a low-rate stream's payload.
    /// - Parameters:
    ///   - payload: the JSON text.
    ///   - stream: a stream that is not high-rate.
    static func event(_ payload: JSONText, stream: InboundStream) throws(PayloadProblem) -> DecodedFrame {
        let keys = eventKeys(stream)
        let members = try JSONMembers.decode(payload, keys: keys) { data, length, members, problem in
            wg_decode_members(data, length, members, problem)
        }
        let sequence = try members.sequence()
        switch stream {
        case .hello:
            let descriptor = DeviceDescriptor(
                model: try members["model"].string(),
                platform: try members["platform"].string(),
                osVersion: try members["osVersion"].string(),
                app: try members["app"].string(),
                authorization: try members["authorization"].enumeration(AuthorizationStatus.self),
                wristLocation: try members["wristLocation"].optionalEnumeration(WristLocation.self),
                crownOrientation: try members["crownOrientation"].optionalEnumeration(CrownOrientation.self),
                headphones: try members["headphones"].optionalString()
            )
            return .hello(descriptor, sequence: sequence)
        case .status:
            let status = DeviceStatus(
                state: try members["state"].enumeration(DeviceStatus.State.self),
                date: try members["date"].optionalNumber()
            )
            return .status(status, sequence: sequence)
        case .authorization:
            let change = AuthorizationChange(
                status: try members["status"].enumeration(AuthorizationStatus.self),
                date: try members["date"].number()
            )
            return .authorization(change, sequence: sequence)
        case .workout:
            let event = WorkoutEvent(
                state: try members["state"].enumeration(WorkoutState.self),
                activityType: try members["activityType"].optionalString(),
                date: try members["date"].number()
            )
            return .workout(event, sequence: sequence)
        case .headphoneConnection:
            let event = HeadphoneConnectionEvent(
                kind: try members["event"].enumeration(HeadphoneConnectionEvent.Kind.self),
                date: try members["date"].number()
            )
            return .headphoneConnection(event, sequence: sequence)
        case .submersionEvent:
            let event = SubmersionEvent(
                date: try members["date"].number(),
                state: try members["state"].enumeration(WaterSubmersionState.self)
            )
            return .submersionEvent(event, sequence: sequence)
        case .submersionMeasurement:
            let measurement = SubmersionMeasurement(
                date: try members["date"].number(),
                depth: try members["depth"].optionalNumber(),
                pressure: try members["pressure"].optionalNumber(),
                surfacePressure: try members["surfacePressure"].number(),
                submersionState: try members["submersionState"].enumeration(DepthState.self)
            )
            return .submersionMeasurement(measurement, sequence: sequence)
        case .submersionTemperature:
            let temperature = WaterTemperature(
                date: try members["date"].number(),
                temperature: try members["temperature"].number(),
                temperatureUncertainty: try members["temperatureUncertainty"].number()
            )
            return .submersionTemperature(temperature, sequence: sequence)
        case .pedometerData:
            let data = PedometerData(
                startDate: try members["startDate"].number(),
                endDate: try members["endDate"].number(),
                numberOfSteps: try members["numberOfSteps"].integer(),
                distance: try members["distance"].optionalNumber(),
                floorsAscended: try members["floorsAscended"].optionalInteger(),
                floorsDescended: try members["floorsDescended"].optionalInteger(),
                currentPace: try members["currentPace"].optionalNumber(),
                currentCadence: try members["currentCadence"].optionalNumber(),
                averageActivePace: try members["averageActivePace"].optionalNumber()
            )
            return .pedometerData(data, sequence: sequence)
        case .pedometerEvent:
            let event = PedometerEvent(
                date: try members["date"].number(),
                type: try members["type"].enumeration(PedometerEventType.self)
            )
            return .pedometerEvent(event, sequence: sequence)
        case .altimeter:
            let sample = AltitudeSample(
                timestamp: try members["timestamp"].number(),
                relativeAltitude: try members["relativeAltitude"].number(),
                pressure: try members["pressure"].number()
            )
            return .altimeter(sample, sequence: sequence)
        case .headphoneMotion, .motion, .batchedAccelerometer, .batchedDeviceMotion, .recorderAccelerometer:
            preconditionFailure("\(stream.rawValue) is a high-rate stream; FrameDecoder.decodeJSON routes it to its sample decoder")
        }
    }

    /// The top-level members of each low-rate payload, as the wire contract lists them.
    private static func eventKeys(_ stream: InboundStream) -> JSONMemberKeys {
        switch stream {
        case .hello: helloKeys
        case .status: statusKeys
        case .authorization: authorizationKeys
        case .workout: workoutKeys
        case .headphoneConnection: headphoneConnectionKeys
        case .submersionEvent: submersionEventKeys
        case .submersionMeasurement: submersionMeasurementKeys
        case .submersionTemperature: submersionTemperatureKeys
        case .pedometerData: pedometerDataKeys
        case .pedometerEvent: pedometerEventKeys
        case .altimeter: altimeterKeys
        case .headphoneMotion, .motion, .batchedAccelerometer, .batchedDeviceMotion, .recorderAccelerometer: JSONMemberKeys()
        }
    }

    private static let helloKeys = JSONMemberKeys(
        "model", "platform", "osVersion", "app", "authorization", "wristLocation", "crownOrientation", "headphones"
    )
    private static let statusKeys = JSONMemberKeys("state", "date")
    private static let authorizationKeys = JSONMemberKeys("status", "date")
    private static let workoutKeys = JSONMemberKeys("state", "activityType", "date")
    private static let headphoneConnectionKeys = JSONMemberKeys("event", "date")
    private static let submersionEventKeys = JSONMemberKeys("date", "state")
    private static let submersionMeasurementKeys = JSONMemberKeys("date", "depth", "pressure", "surfacePressure", "submersionState")
    private static let submersionTemperatureKeys = JSONMemberKeys("date", "temperature", "temperatureUncertainty")
    private static let pedometerDataKeys = JSONMemberKeys(
        "startDate", "endDate", "numberOfSteps", "distance", "floorsAscended", "floorsDescended", "currentPace",
        "currentCadence", "averageActivePace"
    )
    private static let pedometerEventKeys = JSONMemberKeys("date", "type")
    private static let altimeterKeys = JSONMemberKeys("timestamp", "relativeAltitude", "pressure")
}
