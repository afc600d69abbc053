internal import CMosquitto

/// Process-wide libmosquitto set-up.
///
/// `mosquitto_lib_init` is not thread-safe; a global `let` is initialised exactly once, lazily
/// and thread-safely, by the Swift runtime.
enum MosquittoLibrary {
    private static let initialization: Int32 = mosquitto_lib_init()

    /// Makes sure the library is initialised; call before creating any client.
    static func ensureInitialized() {
        _ = initialization
    }

    /// libmosquitto's description of an error number.
    static func describe(_ code: Int32) -> String {
        guard let text = mosquitto_strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The name of an MQTT 5 reason code (CONNACK, PUBACK, SUBACK, DISCONNECT).
    static func describeReason(_ code: Int32) -> String {
        guard let text = mosquitto_reason_string(code) else { return "reason code \(code)" }
        return String(cString: text)
    }

    /// The linked library's version, e.g. "2.0.11".
    static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
