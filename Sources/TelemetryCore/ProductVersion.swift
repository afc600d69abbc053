/// The one version of the project: both executables print it for `--version` and the gateway
/// publishes it in `gateway/status`.
public enum ProductVersion {
    /// The release version, semantic versioning.
    public static let current = "0.3.0"
}
