/// A decoded control frame that changes what the access checks know about a device.
public enum AccessUpdate: Sendable, Equatable {
    /// A `hello`; `retained` is whether the broker delivered it as a retained message.
    case hello(DeviceDescriptor, retained: Bool)
    /// An `authorization` frame.
    case authorization(AuthorizationChange)
    /// A `workout` frame.
    case workout(WorkoutEvent)

    /// The stream the update arrives on.
    public var stream: InboundStream {
        switch self {
        case .hello: .hello
        case .authorization: .authorization
        case .workout: .workout
        }
    }
}
