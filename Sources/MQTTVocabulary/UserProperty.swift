/// An MQTT 5 user property: a name–value pair sent with a message (names may repeat).
public struct UserProperty: Sendable, Equatable, Codable {
    /// The property name.
    public var name: String
    /// The property value.
    public var value: String

    /// Creates a user property.
    /// - Parameters:
    ///   - name: the property name.
    ///   - value: the property value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
