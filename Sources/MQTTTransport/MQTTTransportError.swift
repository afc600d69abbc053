/// An error of the MQTT transport.
///
/// A struct wrapping a private enum (as `ServiceGroupError` does) so that new cases are not
/// source-breaking; compare errors by ``code``.
public struct MQTTTransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can be compared.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: Hashable, Sendable {
            case invalidConfiguration
            case library
            case notConnected
            case connectionLost
            case refused
            case rejectedByBroker
            case timeout
            case shutdown
        }
        fileprivate var kind: Kind

        /// The configuration cannot be used (e.g. missing TLS CA file).
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        /// libmosquitto returned an error.
        public static let library = Code(kind: .library)
        /// The operation needs a connection and there is none.
        public static let notConnected = Code(kind: .notConnected)
        /// The connection dropped before the operation completed (QoS 0 publishes are lost).
        public static let connectionLost = Code(kind: .connectionLost)
        /// The broker refused the connection (CONNACK reason code).
        public static let refused = Code(kind: .refused)
        /// The broker answered with a failure reason code (PUBACK, SUBACK).
        public static let rejectedByBroker = Code(kind: .rejectedByBroker)
        /// The operation did not complete in time.
        public static let timeout = Code(kind: .timeout)
        /// The client shut down before the operation completed.
        public static let shutdown = Code(kind: .shutdown)

        public var description: String { "\(kind)" }
    }

    /// What went wrong.
    public var code: Code
    /// Human-readable detail (often `mosquitto_strerror` or a reason-code name).
    public var message: String
    /// MQTT reason code or libmosquitto error number, when there is one.
    public var reasonCode: Int?
    /// Where the error was raised.
    public var fileID: String
    /// Line where the error was raised.
    public var line: Int

    /// Creates an error.
    public init(_ code: Code, _ message: String, reasonCode: Int? = nil, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.reasonCode = reasonCode
        self.fileID = fileID
        self.line = line
    }

    public var description: String {
        "MQTTTransportError.\(code): \(message)" + (reasonCode.map { " (code \($0))" } ?? "")
    }
}
