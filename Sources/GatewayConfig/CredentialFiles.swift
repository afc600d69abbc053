import Foundation

/// Strict reading of the files that prove the gateway's identity: the broker password file and
/// the TLS CA, certificate and key. A file that cannot be read, is not UTF-8 or holds no
/// credential is a configuration error naming its key -- never a silent fallback (a password
/// file read with `try?` would mean connecting with no password).
package enum CredentialFiles {
    /// The password: the first line of `path`, without its line break.
    /// - Returns: the password, or a sentence saying why the file is unusable.
    package static func password(at path: String) -> Result<String, CredentialFileProblem> {
        let text: String
        switch utf8Text(at: path) {
        case .success(let contents): text = contents
        case .failure(let problem): return .failure(problem)
        }
        // "\r\n" is one Character and a newline, so CR LF files work too.
        guard let line = text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first, !line.isEmpty
        else {
            return .failure(CredentialFileProblem("file '\(path)' has an empty first line; it must hold the password"))
        }
        return .success(String(line))
    }

    /// Why a PEM file (CA, certificate or key) is unusable, or nil when it is readable UTF-8
    /// text with a PEM block.
    package static func pemProblem(at path: String) -> CredentialFileProblem? {
        switch utf8Text(at: path) {
        case .failure(let problem): return problem
        case .success(let text):
            return text.contains("-----BEGIN ") ? nil : CredentialFileProblem("file '\(path)' holds no PEM block (-----BEGIN ...)")
        }
    }

    private static func utf8Text(at path: String) -> Result<String, CredentialFileProblem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(CredentialFileProblem("file '\(path)' does not exist"))
        }
        if isDirectory.boolValue { return .failure(CredentialFileProblem("'\(path)' is a directory, not a file")) }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(CredentialFileProblem("file '\(path)' is not readable (permissions?)"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(CredentialFileProblem("file '\(path)' is not UTF-8 text"))
        }
        return .success(text)
    }
}

/// Why a credential file cannot be used; the caller adds the key that names the file.
package struct CredentialFileProblem: Error, Sendable, Equatable {
    /// A sentence naming the file and the problem.
    package var message: String
    package init(_ message: String) { self.message = message }
}
